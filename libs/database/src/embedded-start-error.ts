/**
 * Why the embedded database could not start, in words an operator can act on. PGlite's file system
 * (Emscripten) throws plain `{errno}` objects with its own numbering (ENOSPC is 51, EROFS 69, EACCES 2),
 * which printed as `[object Object]` or `errno 51`. Pure: no Nest, no database.
 */
const EMSCRIPTEN_ERRNO: Record<number, string> = { 2: 'EACCES', 44: 'ENOENT', 51: 'ENOSPC', 63: 'EPERM', 69: 'EROFS' };

const HINTS: Record<string, string> = {
  ENOSPC: 'no space left on the device holding DATA_DIR: free space or point DATA_DIR at a larger volume',
  EROFS: 'DATA_DIR is on a read-only file system: point DATA_DIR at a writable directory',
  EACCES: 'no permission to write in DATA_DIR: fix its owner/permissions or point DATA_DIR elsewhere',
  EPERM: 'no permission to write in DATA_DIR: fix its owner/permissions or point DATA_DIR elsewhere',
  // A recursive mkdir on a read-only mount reports ENOENT.
  ENOENT: 'DATA_DIR cannot be created (read-only file system, or a path that cannot exist): point DATA_DIR at a writable directory',
};

export function describeEmbeddedStartError(error: unknown): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; errno?: unknown; message?: unknown; stack?: unknown };
  const code = typeof e.code === 'string' ? e.code : typeof e.errno === 'number' ? EMSCRIPTEN_ERRNO[e.errno] : undefined;
  const hint = code ? HINTS[code] : undefined;
  const text =
    error instanceof Error
      ? error.message
      : typeof e.message === 'string' && e.message
        ? e.message
        : typeof e.errno === 'number'
          ? `file system error errno ${e.errno}`
          : String(error);
  if (hint) return `${hint} (${code}: ${text})`;
  return error instanceof Error ? (error.stack ?? error.message) : text;
}
