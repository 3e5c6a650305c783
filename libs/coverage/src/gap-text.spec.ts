import { describe, expect, it } from '@jest/globals';
import { normalizeGapText } from './gap-text.js';

/** Each row: variants that must share one key. */
const SAME: [string, string[]][] = [
  ['如何重置机械臂', ['如何重置机械臂？', '如何 重置 机械臂', '如何重置机械臂?', '「如何重置机械臂」', '如何，重置：机械臂！', '如何\u3000重置机械臂。', '如何重置\u200b机械臂']],
  ['resetarm', ['Reset arm', 'RESET ARM!', 'reset-arm?', '  reset\tarm\n', 'ＲＥＳＥＴ　ＡＲＭ', 'Reset, arm.', '"reset" (arm)']],
  ['x200报错e15怎么办', ['X-200 报错 E15 怎么办？', 'x200报错E15怎么办', 'Ｘ２００报错Ｅ１５怎么办？', 'X200《报错》E15……怎么办']],
  ['机械臂dobotmg400无法连接', ['机械臂 Dobot MG400 无法连接', '机械臂【DOBOT】MG400：无法连接！！', '机械臂dobot·mg400无法连接']],
  ['c', ['C++', 'c', 'c#', '<c>']],
];

/** Pairs that must stay apart. */
const DIFFERENT: [string, string][] = [
  ['如何重置机械臂', '如何重启机械臂'],
  ['reset arm', 'reset arms'],
  ['机械臂', '機械臂'],
  ['E15 报错', 'E16 报错'],
  ['价格 ￥100', '价格 100'],
  ['错误 😀', '错误'],
  ['第一轴', '第1轴'],
];

describe('normalizeGapText', () => {
  it.each(SAME)('%s groups its variants', (key, variants) => {
    for (const v of variants) expect(normalizeGapText(v)).toBe(key);
  });

  it.each(DIFFERENT)('%p and %p stay apart', (a, b) => {
    expect(normalizeGapText(a)).not.toBe(normalizeGapText(b));
  });

  it.each([[''], ['   '], ['？！。，'], [null], [undefined]])('%p normalizes to the empty key', (q) => {
    expect(normalizeGapText(q)).toBe('');
  });

  it('is idempotent', () => {
    for (const [, variants] of SAME) for (const v of variants) expect(normalizeGapText(normalizeGapText(v))).toBe(normalizeGapText(v));
  });
});
