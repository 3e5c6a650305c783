import { chineseSegmenter } from '@arbiter/common/segmenter';

/** Chinese word segmenter for `HashingFeaturizer.cjkSegmenter` (jieba, dictionary loaded once, ~200 ms). */
export function jiebaSegmenter(): (run: string) => string[] {
  const jieba = chineseSegmenter();
  return (run) => jieba.cut(run, false);
}
