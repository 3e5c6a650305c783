import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';

let instance: Jieba | undefined;

/**
 * The one Chinese word segmenter of a thread (jieba with its default dictionary, ~200 ms and a few MB to
 * load): the lexical analyzer, the built-in embedder and the intent featurizer share it. Pure logic imports
 * it as `@arbiter/common/segmenter`, which carries no Nest code (docs/CONVENTIONS.md "Lib packages").
 */
export function chineseSegmenter(): Jieba {
  instance ??= Jieba.withDict(dict);
  return instance;
}
