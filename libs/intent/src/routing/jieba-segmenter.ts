import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';

let instance: Jieba | null = null;

/** Chinese word segmenter for `HashingFeaturizer.cjkSegmenter` (jieba, dictionary loaded once, ~200 ms). */
export function jiebaSegmenter(): (run: string) => string[] {
  instance ??= Jieba.withDict(dict);
  const jieba = instance;
  return (run) => jieba.cut(run, false);
}
