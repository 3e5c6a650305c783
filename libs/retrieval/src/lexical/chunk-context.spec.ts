import { chunkContextText } from './chunk-context.js';

describe('chunkContextText', () => {
  it.each([
    ['no section (a JSON document)', 'Reset the unit.', undefined, 'Reset the unit.'],
    ['null section', 'Reset the unit.', null, 'Reset the unit.'],
    ['empty path', 'Reset the unit.', [], 'Reset the unit.'],
    ['blank headings dropped', 'Reset the unit.', ['  ', ''], 'Reset the unit.'],
    ['one heading', 'Use update-alternatives.', ['1.4.7 Setting a default text editor'], '1.4.7 Setting a default text editor\nUse update-alternatives.'],
    [
      'the path outermost first, trimmed',
      '运行 apt update。',
      [' 第 2 章 Debian 软件包管理 ', '2.1 Debian 软件包管理的前提'],
      '第 2 章 Debian 软件包管理 › 2.1 Debian 软件包管理的前提\n运行 apt update。',
    ],
  ])('%s', (_name, content, section, expected) => {
    expect(chunkContextText(content, section)).toBe(expected);
  });
});
