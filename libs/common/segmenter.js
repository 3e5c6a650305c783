// Entry of @arbiter/common/segmenter in the built app (see index.js beside it).
export * from '../../dist/libs/common/src/segmenter.js';
