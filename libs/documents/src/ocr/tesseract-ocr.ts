import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ChildLauncher } from './child-launcher.js';
import { ocrAvailability, parseTesseractLanguages, type OcrAvailability, type OcrMode, type OcrPageText, type OcrPort } from './ocr-plan.js';

export interface TesseractOcrOptions {
  mode: OcrMode;
  /** tesseract language names, e.g. ['eng', 'chi_sim']. */
  languages: string[];
  /** Pages read at once, across every file (each page: one pdftoppm, then one tesseract). */
  concurrency: number;
  /** Rendering resolution (tesseract reads best at about 300 dpi). */
  dpi?: number;
  /** The programs run (default: found on PATH); tests name a missing one to see OCR reported unavailable. */
  tools?: { tesseract: string; pdftoppm: string };
}

const PATH_TOOLS = { tesseract: 'tesseract', pdftoppm: 'pdftoppm' };

/** A child's stdout, at most this much (a page's text is a few KiB). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * Scanned PDF pages read by Debian's tools as child processes (docs/documents.md "Scanned PDFs (OCR)"):
 * poppler's `pdftoppm` renders a page to a grey PNG, `tesseract` reads it. Availability is detected once
 * (`tesseract --list-langs`, `pdftoppm -v`). The PDF is written once to a private temp folder, removed
 * when the file is done (or stopped); children are killed (SIGKILL) when the signal aborts — the file's
 * time limit (extraction-runner.ts). At most `concurrency` pages are read at once, and tesseract runs
 * single-threaded (OMP_THREAD_LIMIT=1): its OpenMP threads only spin on a busy machine. The programs are started
 * by a small launcher process (child-launcher.ts), not by forking the API's process.
 */
export class TesseractOcr implements OcrPort {
  private detected: Promise<OcrAvailability> | null = null;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly launcher = new ChildLauncher();

  constructor(private readonly options: TesseractOcrOptions) {}

  /** Ends the launcher process (shutdown); a later read starts it again. */
  close(): void {
    this.launcher.close();
  }

  availability(): Promise<OcrAvailability> {
    this.detected ??= this.detect();
    return this.detected;
  }

  async read(pdf: Uint8Array, pages: readonly number[], signal: AbortSignal): Promise<OcrPageText[]> {
    const ready = await this.availability();
    if (!ready.available) throw new Error(ready.reason);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'arbiter-ocr-'));
    try {
      const input = path.join(dir, 'in.pdf');
      await writeFile(input, pdf, { mode: 0o600 });
      // Every page settles (its children exited) before the folder is removed.
      const settled = await Promise.allSettled(pages.map((page) => this.turn(signal, () => this.readPage(input, dir, page, ready.languages, signal))));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
      return settled.map((s, i) => ({ page: pages[i]!, text: s.status === 'fulfilled' ? s.value : '' }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async readPage(input: string, dir: string, page: number, languages: string[], signal: AbortSignal): Promise<string> {
    const root = path.join(dir, `page-${page}`);
    const dpi = String(this.options.dpi ?? 300);
    const tools = this.options.tools ?? PATH_TOOLS;
    await this.run(tools.pdftoppm, ['-f', String(page), '-l', String(page), '-r', dpi, '-gray', '-png', '-singlefile', input, root], signal);
    try {
      return await this.run(tools.tesseract, [`${root}.png`, 'stdout', '-l', languages.join('+'), '--dpi', dpi], signal);
    } finally {
      await rm(`${root}.png`, { force: true });
    }
  }

  private async detect(): Promise<OcrAvailability> {
    if (this.options.mode === 'off') return ocrAvailability('off', this.options.languages, null);
    const quick = AbortSignal.timeout(10_000);
    const tools = this.options.tools ?? PATH_TOOLS;
    try {
      await this.run(tools.pdftoppm, ['-v'], quick, true);
      const listed = await this.run(tools.tesseract, ['--list-langs'], quick, true);
      return ocrAvailability(this.options.mode, this.options.languages, parseTesseractLanguages(listed));
    } catch {
      return ocrAvailability(this.options.mode, this.options.languages, null);
    }
  }

  /** Runs a tool, resolves with its stdout (`withStderr`: and stderr, where `-v`/`--list-langs` print); fails on a non-zero exit. */
  private async run(command: string, args: string[], signal: AbortSignal, withStderr = false): Promise<string> {
    try {
      return await this.launcher.run(command, args, { signal, withStderr, maxOutputBytes: MAX_OUTPUT_BYTES, extraEnv: { OMP_THREAD_LIMIT: '1' } });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new Error(`${command}: ${(error as Error).message}`);
    }
  }

  /** A turn of the shared concurrency bound; a page whose file was stopped meanwhile never starts. */
  private async turn<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    if (this.running >= Math.max(1, this.options.concurrency)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      signal.throwIfAborted();
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
