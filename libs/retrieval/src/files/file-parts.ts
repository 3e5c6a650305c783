/**
 * An uploaded file's bytes in parts (docs/documents.md "Storage", migration 0254): no statement the API's thread
 * serialises or parses carries more than one part, so a 50 MiB file never holds the event loop for a whole copy
 * or a whole hex parse (docs/hot-paths.md "A large upload and the event loop").
 */
export const FILE_PART_BYTES = 1024 * 1024;

/** The parts of `bytes`, in order: views into it (no copy), each at most `partBytes` long; none for an empty file. */
export function splitIntoParts(bytes: Uint8Array, partBytes = FILE_PART_BYTES): Uint8Array[] {
  if (!Number.isInteger(partBytes) || partBytes < 1) throw new RangeError(`partBytes must be a positive integer, got ${partBytes}`);
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += partBytes) parts.push(bytes.subarray(offset, Math.min(offset + partBytes, bytes.length)));
  return parts;
}

/**
 * Collects the parts read back into one array of `size` bytes with an ArrayBuffer of its own (so the extraction
 * runner can transfer it to its thread without a copy). Throws when the parts do not add up to `size`: a file whose
 * parts are missing must fail, not be parsed short.
 */
export class PartAssembler {
  readonly bytes: Uint8Array;
  private filled = 0;

  constructor(readonly size: number) {
    this.bytes = new Uint8Array(size);
  }

  add(part: Uint8Array): void {
    if (this.filled + part.length > this.size) throw new Error(`file parts exceed the recorded size of ${this.size} bytes`);
    this.bytes.set(part, this.filled);
    this.filled += part.length;
  }

  /** The whole file; throws when parts are missing. */
  finish(): Uint8Array {
    if (this.filled !== this.size) throw new Error(`file parts hold ${this.filled} of the recorded ${this.size} bytes`);
    return this.bytes;
  }
}
