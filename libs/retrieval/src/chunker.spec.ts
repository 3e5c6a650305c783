import { describe, expect, it } from '@jest/globals';
import { chunkText, DEFAULT_CHUNKER_OPTIONS, type TextChunk, validateChunkerOptions } from './chunker.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Invariants every chunking must satisfy. */
function checkInvariants(text: string, chunks: TextChunk[], chunkSize: number, overlap: number): void {
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.content).toBe(text.slice(c.start, c.end));
    expect(c.content.length).toBeGreaterThan(0);
    expect(c.content.length).toBeLessThanOrEqual(chunkSize);
    expect(c.content).toBe(c.content.trim());
    expect(LONE_SURROGATE.test(c.content)).toBe(false);
    if (i > 0) {
      const prev = chunks[i - 1];
      expect(c.start).toBeGreaterThan(prev.start);
      expect(c.end).toBeGreaterThan(prev.end);
      expect(Math.max(0, prev.end - c.start)).toBeLessThanOrEqual(overlap);
    }
  });
  // Every non-whitespace character of the input lands in some chunk.
  for (let p = 0; p < text.length; p++) {
    if (/\s/.test(text[p])) continue;
    expect(chunks.some((c) => c.start <= p && p < c.end)).toBe(true);
  }
}

const ZH =
  '机械臂无法启动时，请先检查电源指示灯。若指示灯不亮，请确认电源线已经插紧！仍然无法启动？请联系技术支持；并提供设备序列号。' +
  '校准步骤如下：先回零，再执行自动校准。校准完成后，机械臂会发出提示音。';
const EN =
  'The arm does not start. Check that the power LED is on! Is the cable plugged in? If not, plug it in; then retry. ' +
  'Version 3.14 fixed the calibration bug. Calibration takes about 2.5 minutes.';
const MIXED = '请先执行 calibrate 命令。Then restart the controller! 如果仍然报错 E-042，请联系支持？Contact support@example.com; we reply fast.';

describe('chunkText', () => {
  it('returns nothing for empty or blank text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\n\t ')).toEqual([]);
  });

  it('keeps a short text in one chunk', () => {
    expect(chunkText('你好。Hello.', { chunkSize: 64, overlap: 8 })).toEqual([{ index: 0, content: '你好。Hello.', start: 0, end: 9 }]);
  });

  it.each([
    ['Chinese', ZH, 40, 10],
    ['Chinese, no overlap', ZH, 30, 0],
    ['English', EN, 60, 20],
    ['English, tiny chunks', EN, 16, 5],
    ['mixed', MIXED, 40, 12],
  ])('%s: every chunk is a trimmed slice within size and overlap', (_name, text, chunkSize, overlap) => {
    const chunks = chunkText(text, { chunkSize, overlap });
    expect(chunks.length).toBeGreaterThan(1);
    checkInvariants(text, chunks, chunkSize, overlap);
  });

  it('Chinese: chunks end at 。！？； sentence ends', () => {
    const chunks = chunkText(ZH, { chunkSize: 40, overlap: 0 });
    for (const c of chunks) expect(c.content).toMatch(/[。！？；]$/);
    // and begin at a sentence start
    for (const c of chunks.slice(1)) expect(ZH[c.start - 1]).toMatch(/[。！？；]/);
  });

  it('English: chunks end at sentence ends; decimals (3.14, 2.5) are not boundaries', () => {
    const chunks = chunkText(EN, { chunkSize: 60, overlap: 0 });
    for (const c of chunks) expect(c.content).toMatch(/[.!?;]$/);
    expect(chunks.some((c) => c.content.includes('Version 3.14 fixed the calibration bug.'))).toBe(true);
    expect(chunks.some((c) => c.content.includes('about 2.5 minutes.'))).toBe(true);
  });

  it('mixed: Chinese and English terminators both split', () => {
    const chunks = chunkText(MIXED, { chunkSize: 30, overlap: 0 });
    expect(chunks.map((c) => c.content)).toEqual([
      '请先执行 calibrate 命令。',
      'Then restart the controller!',
      '如果仍然报错 E-042，请联系支持？',
      'Contact support@example.com;',
      'we reply fast.',
    ]);
  });

  it('overlap repeats whole trailing sentences when they fit', () => {
    const text = '第一句。第二句。第三句。第四句。第五句。';
    const chunks = chunkText(text, { chunkSize: 12, overlap: 4 });
    expect(chunks.map((c) => c.content)).toEqual(['第一句。第二句。第三句。', '第三句。第四句。第五句。']);
  });

  it('keeps closing quotes with their sentence', () => {
    const chunks = chunkText('他说：“请重启。”然后离开了。', { chunkSize: 9, overlap: 0 });
    expect(chunks[0].content).toBe('他说：“请重启。”');
  });

  it('paragraph breaks are boundaries and headings start a new chunk', () => {
    const text = '# 安装\n先接电源\n再开机\n\n## 校准\n执行自动校准\n\nFinal paragraph without a stop';
    const chunks = chunkText(text, { chunkSize: 200, overlap: 20 });
    expect(chunks.map((c) => c.content)).toEqual(['# 安装\n先接电源\n再开机', '## 校准\n执行自动校准\n\nFinal paragraph without a stop']);
  });

  it('a huge Chinese sentence without punctuation is hard-cut within size, with a character overlap', () => {
    const text = '机械臂控制器固件升级'.repeat(200);
    const chunks = chunkText(text, { chunkSize: 100, overlap: 10 });
    checkInvariants(text, chunks, 100, 10);
    expect(chunks.length).toBeGreaterThanOrEqual(20);
    expect(chunks[1].start).toBe(chunks[0].end - 10);
  });

  it('a huge English sentence is split at spaces and commas, words stay whole', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ') + ', and so on';
    const chunks = chunkText(text, { chunkSize: 80, overlap: 15 });
    checkInvariants(text, chunks, 80, 15);
    for (const c of chunks) {
      expect(c.content).toMatch(/^(word\d+|and)/);
      expect(c.content).toMatch(/(word\d+,?|on)$/);
    }
  });

  it('never splits a surrogate pair (emoji and astral CJK), whatever the size', () => {
    const text = '😀𠀋'.repeat(300);
    for (const [size, overlap] of [
      [9, 0],
      [15, 4],
      [31, 7],
      [64, 11],
    ]) {
      const chunks = chunkText(text, { chunkSize: size, overlap });
      checkInvariants(text, chunks, size, overlap);
    }
  });

  it('defaults and option validation', () => {
    expect(DEFAULT_CHUNKER_OPTIONS).toEqual({ chunkSize: 512, overlap: 64 });
    expect(validateChunkerOptions({ chunkSize: 100 })).toEqual({ chunkSize: 100, overlap: 64 });
    expect(() => validateChunkerOptions({ chunkSize: 4 })).toThrow(RangeError);
    expect(() => validateChunkerOptions({ chunkSize: 10.5 })).toThrow(RangeError);
    expect(() => validateChunkerOptions({ chunkSize: 100, overlap: 100 })).toThrow(RangeError);
    expect(() => validateChunkerOptions({ chunkSize: 100, overlap: -1 })).toThrow(RangeError);
  });

  it('a realistic document at default size', () => {
    const text = (ZH + '\n\n' + EN + '\n\n').repeat(30);
    const chunks = chunkText(text);
    checkInvariants(text, chunks, DEFAULT_CHUNKER_OPTIONS.chunkSize, DEFAULT_CHUNKER_OPTIONS.overlap);
  });
});
