import { describe, expect, it } from '@jest/globals';
import { describeEmbeddedStartError } from './embedded-start-error.js';

describe('describeEmbeddedStartError', () => {
  it.each([
    ['Emscripten ENOSPC object', { errno: 51 }, /^no space left on the device holding DATA_DIR.*\(ENOSPC: file system error errno 51\)$/],
    ['Emscripten EROFS object', { errno: 69 }, /^DATA_DIR is on a read-only file system/],
    [
      'Node EACCES',
      Object.assign(new Error("EACCES: permission denied, mkdir '/srv/data'"), { code: 'EACCES' }),
      /^no permission to write in DATA_DIR.*mkdir '\/srv\/data'/,
    ],
    ['Node ENOSPC', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), /^no space left on the device holding DATA_DIR/],
    [
      'mkdir on a read-only mount',
      Object.assign(new Error("ENOENT: no such file or directory, mkdir '/mnt/ro/data'"), { code: 'ENOENT' }),
      /^DATA_DIR cannot be created .*mkdir '\/mnt\/ro\/data'\)$/,
    ],
    ['an unknown object', { errno: 7 }, /^file system error errno 7$/],
    ['a plain error', new Error('boom'), /^Error: boom/],
  ])('%s', (_name, error, expected) => {
    const text = describeEmbeddedStartError(error);
    expect(text).toMatch(expected);
    expect(text).not.toContain('[object Object]');
  });
});
