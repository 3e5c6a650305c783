import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_EXTRACTION_LIMITS } from './document.types.js';
import { ExtractionError, ExtractionErrorCode } from './extraction-error.js';
import { ExtractionRunner } from './extraction-runner.js';

// Roomy: the time limit counts from the hand-over, and a fresh thread compiles this test's TypeScript first
// (over 10 s seen on a loaded 2-core CI machine). The limit itself is tested with explicit short limits below.
const limits = { ...DEFAULT_EXTRACTION_LIMITS, timeoutMs: 60_000 };
const stub = new URL('./extraction-runner.test-extractors.ts', import.meta.url);
const codeOf = (e: unknown): string | null => (e instanceof ExtractionError ? e.code : null);

describe('ExtractionRunner with the built-in dispatch (a real PDF in a real worker thread)', () => {
  const runner = new ExtractionRunner();
  afterAll(() => runner.close());

  it('extracts a real PDF in the thread, the bytes transferred (the caller copy detached)', async () => {
    const bytes = new Uint8Array(readFileSync(new URL('../test-fixtures/debian-reference-p40-41.zh-cn.pdf', import.meta.url)));
    const doc = await runner.extract(bytes, 'manual.pdf', limits);
    expect(bytes.byteLength).toBe(0);
    expect(doc.pageCount).toBe(2);
    expect(doc.blocks).toContainEqual({ kind: 'heading', text: '1.2.7 链接', level: 3, page: 1 });
  });

  it('dispatches other formats through extractDocument (sniffed from the bytes)', async () => {
    const doc = await runner.extract(new TextEncoder().encode('# Title\n\nSome text.\n'), 'notes.md', limits);
    expect(doc.kind).toBe('markdown');
    expect(doc.blocks[0]).toMatchObject({ kind: 'heading', text: 'Title', level: 1 });
  });

  it('passes an ExtractionError through with its code and message', async () => {
    const bytes = new Uint8Array(readFileSync(new URL('../test-fixtures/encrypted.pdf', import.meta.url)));
    await expect(runner.extract(bytes, 'locked.pdf', limits)).rejects.toEqual(
      new ExtractionError(ExtractionErrorCode.PdfEncrypted, 'The PDF is password-protected.'),
    );
  });
});

describe('ExtractionRunner limits and crashes (a stand-in extractor in the thread)', () => {
  const runner = new ExtractionRunner({ extractorModule: stub, maxHeapMb: 64 });
  afterAll(() => runner.close());
  const ok = (): Promise<string | undefined> => runner.extract(new Uint8Array([7, 8, 9]), 'ok', limits).then((d) => d.blocks[0]?.text);

  it('runs a file and keeps the thread for the next one', async () => {
    const first = await ok();
    expect(first).toMatch(/^3 bytes, first 7, thread \d+$/u);
    expect(await ok()).toBe(first);
  });

  it.each([
    ['a parser that spins → PARSE_TIMEOUT after timeoutMs', 'spin', new Uint8Array([1]), ExtractionErrorCode.ParseTimeout],
    [
      'a parser that throws → an ExtractionError in the format terms (PDF_CORRUPT), not a crash',
      'throw',
      new TextEncoder().encode('%PDF-1.7 x'),
      ExtractionErrorCode.PdfCorrupt,
    ],
    ['a parser that runs out of its heap cap → DOCX_INVALID for a zip', 'oom', new Uint8Array([0x50, 0x4b, 0x03, 0x04]), ExtractionErrorCode.DocxInvalid],
    ['a thread that exits → TEXT_UNDECODABLE for text', 'exit', new TextEncoder().encode('plain'), ExtractionErrorCode.TextUndecodable],
  ])('%s, and the next file gets a fresh thread', async (_what, name, bytes, code) => {
    const before = await ok();
    const started = Date.now();
    const error = await runner.extract(bytes, name, { ...limits, timeoutMs: 1_500 }).catch((e: unknown) => e);
    expect(codeOf(error)).toBe(code);
    expect(error instanceof Error ? error.message : '').not.toContain('secret');
    if (name === 'spin') expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    const after = await ok();
    expect(after).toMatch(/^3 bytes, first 7, thread \d+$/u);
    expect(after).not.toBe(before);
  });

  it('an ExtractionError thrown by the extractor keeps its code and the thread', async () => {
    const before = await ok();
    await expect(runner.extract(new Uint8Array([1]), 'refuse', limits)).rejects.toEqual(
      new ExtractionError(ExtractionErrorCode.NoText, 'The file contains no text.'),
    );
    expect(await ok()).toBe(before);
  });

  it('runs files in parallel with a pool of 2: at most 2 threads, a spinning file does not hold up the other thread', async () => {
    const pool = new ExtractionRunner({ extractorModule: stub, poolSize: 2 });
    try {
      const texts = await Promise.all([1, 2, 3, 4].map(() => pool.extract(new Uint8Array([7, 8, 9]), 'ok', limits).then((d) => d.blocks[0]?.text)));
      expect(new Set(texts).size).toBeLessThanOrEqual(2);
      const spinning = pool.extract(new Uint8Array([1]), 'spin', { ...limits, timeoutMs: 3_000 }).catch(codeOf);
      // With one thread spinning, the second thread still answers.
      await expect(pool.extract(new Uint8Array([7, 8, 9]), 'ok', limits)).resolves.toMatchObject({ title: 'ok' });
      await expect(spinning).resolves.toBe(ExtractionErrorCode.ParseTimeout);
    } finally {
      await pool.close();
    }
  });

  it('close() terminates the threads: a running file is rejected, later files too', async () => {
    const closing = new ExtractionRunner({ extractorModule: stub });
    const spinning = closing.extract(new Uint8Array([1]), 'spin', limits).catch((e: unknown) => (e instanceof Error ? e.message : ''));
    await new Promise((r) => setTimeout(r, 300));
    await closing.close();
    await expect(spinning).resolves.toBe('the extraction runner is closed');
    await expect(closing.extract(new Uint8Array([1]), 'ok', limits)).rejects.toThrow('the extraction runner is closed');
  });
});
