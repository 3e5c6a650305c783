/**
 * The manuals of `bench:documents`: Debian Reference in English and Simplified Chinese as installed by
 * Debian's packages (never committed), their installed version, and the ~50 MiB PDF of the health mode,
 * made at run time from the same manuals with qpdf.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ManualRef } from './questions.js';

export const INSTALL_HINT = 'apt-get update && apt-get install -y debian-reference-en debian-reference-zh-cn qpdf poppler-utils';

/** The installed version of a Debian package, or null when it is not installed (or this is not Debian). */
export function installedVersion(pkg: string): string | null {
  try {
    const out = execFileSync('dpkg-query', ['-W', '-f=${Status}\t${Version}', pkg], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [status, version] = out.split('\t');
    return status?.endsWith(' installed') && version ? version : null;
  } catch {
    return null;
  }
}

/**
 * Why the manual cannot be used for the labelled questions (missing, or another version than the one the
 * pages were labelled on), or null.
 */
export function manualProblem(manual: ManualRef): string | null {
  const version = installedVersion(manual.package);
  if (!existsSync(manual.file) || version === null) return `${manual.file} is missing: install it with\n  ${INSTALL_HINT}`;
  if (version !== manual.version) return `${manual.package} ${version} is installed, but the questions' pages were labelled on ${manual.version}`;
  return null;
}

/**
 * Builds a real PDF of at most `maxBytes` (and at most `maxPages` pages) from the manuals: copies of both,
 * merged by qpdf with their streams stored uncompressed (a manual alone is ~1.3 MB compressed), until the
 * next copy would pass `maxBytes`. Each copy is a file of its own so that qpdf keeps its pages' objects
 * apart (it shares the objects of a file named twice). Returns its path, size and page count.
 */
export function buildLargePdf(manuals: readonly string[], dir: string, maxBytes: number, maxPages: number): { file: string; bytes: number; pages: number } {
  const merge = (inputs: string[], out: string) => writePdf(['--empty', '--pages', ...inputs, '--'], out);
  const inputs: string[] = [];
  let best: { file: string; bytes: number; pages: number } | null = null;
  for (let copy = 0; copy < 64; copy++) {
    const source = manuals[copy % manuals.length] as string;
    const input = path.join(dir, `copy-${copy}${path.extname(source)}`);
    copyFileSync(source, input);
    inputs.push(input);
    const out = path.join(dir, `large-${copy}.pdf`);
    const made = merge(inputs, out);
    if (made.bytes > maxBytes || made.pages > maxPages) break;
    best = { file: out, ...made };
  }
  if (!best) throw new Error(`one copy of ${manuals[0]} is already larger than ${maxBytes} bytes uncompressed`);
  return best;
}

/**
 * The large PDF with its last (`'last'`) or first (`'first'`) page left out, under the same file name in `dir`. Without
 * its last page a re-upload changes the file and few of its chunks (the rest keep their rows and vectors,
 * docs/documents.md "Re-upload"); without its first, every chunk's pages move, so every row is written again.
 */
export function buildChangedPdf(file: string, dir: string, dropped: 'last' | 'first' = 'last'): { file: string; bytes: number; pages: number } {
  const out = path.join(dir, path.basename(file));
  return { file: out, ...writePdf([file, '--pages', file, dropped === 'last' ? '1-r2' : '2-z', '--'], out) };
}

/** Runs qpdf with `args` (its input and page selection) writing `out` with uncompressed streams; `out`'s size and pages. */
function writePdf(args: readonly string[], out: string): { bytes: number; pages: number } {
  execFileSync('qpdf', [...args, '--stream-data=uncompress', '--object-streams=disable', out], { stdio: 'inherit' });
  const pages = Number(execFileSync('qpdf', ['--show-npages', out], { encoding: 'utf8' }).trim());
  return { bytes: statSync(out).size, pages };
}
