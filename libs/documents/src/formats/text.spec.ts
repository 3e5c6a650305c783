import { describe, expect, it } from '@jest/globals';
import iconv from 'iconv-lite';
import { decodeText, textToBlocks } from './text.js';

const zh = '请在设置页面中选择语言环境，然后重新启动应用程序。如果问题仍然存在，请联系技术支持团队获取帮助。'.repeat(3);
const tw = '請在設定頁面中選擇語言環境，然後重新啟動應用程式。如果問題仍然存在，請聯絡技術支援團隊取得協助。'.repeat(3);

describe('decodeText', () => {
  it.each([
    { what: 'UTF-8', bytes: new TextEncoder().encode(zh), expected: zh },
    { what: 'UTF-8 with a BOM', bytes: new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('hello')]), expected: 'hello' },
    { what: 'GB18030', bytes: new Uint8Array(iconv.encode(zh, 'gb18030')), expected: zh },
    { what: 'GBK', bytes: new Uint8Array(iconv.encode(zh, 'gbk')), expected: zh },
    { what: 'Big5', bytes: new Uint8Array(iconv.encode(tw, 'big5')), expected: tw },
  ])('$what', ({ bytes, expected }) => {
    expect(decodeText(bytes)).toBe(expected);
  });
});

describe('textToBlocks', () => {
  it.each([
    { text: 'a\nb\n\nc', expected: ['a\nb', 'c'] },
    { text: 'a\r\n\r\n\r\nb  \r\n', expected: ['a', 'b'] },
    { text: '第一段\n\u3000\n第二段', expected: ['第一段', '第二段'] },
    { text: '\n \n', expected: [] },
  ])('$text', ({ text, expected }) => {
    expect(textToBlocks(text).map((b) => b.text)).toEqual(expected);
  });
});
