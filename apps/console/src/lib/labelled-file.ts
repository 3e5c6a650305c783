/** One labelled message for the evaluation report; `intent: null` = out of scope. */
export interface LabelledLine {
  text: string;
  intent: string | null;
}

export type ParseResult = { ok: true; examples: LabelledLine[] } | { ok: false; line: number; problem: string };

/**
 * Reads a labelled file as the API's labelled sets take it (docs/learning.md): JSON Lines of {"text", "intent"}, or a
 * JSON array of the same; `intent` null or "" is out of scope. The first bad line is named, nothing is half-read.
 */
export function parseLabelledFile(content: string): ParseResult {
  const read = parseJsonRows(content, toExample);
  return read.ok ? { ok: true, examples: read.rows } : read;
}

/** A labelled question for the grade's fit (`POST /admin/knowledge/grading/fit`); `filePath: null` = the knowledge base has no answer. */
export interface LabelledPair {
  query: string;
  filePath: string | null;
  pages?: number[];
  section?: string[];
}

/**
 * Reads the grade's labelled questions (docs/console.md "Knowledge"): JSON Lines of {"query", "filePath", "pages"?,
 * "section"?}, or a JSON array of the same, as `POST /admin/knowledge/grading/fit` takes its pairs; `filePath` null
 * or "" = no answer in the knowledge base. The first bad line is named, nothing is half-read.
 */
export function parseLabelledPairs(content: string): { ok: true; pairs: LabelledPair[] } | { ok: false; line: number; problem: string } {
  const read = parseJsonRows(content, toPair);
  return read.ok ? { ok: true, pairs: read.rows } : read;
}

/** JSON Lines (blank lines skipped) or one JSON array, each row read by `toRow` (a string is the row's problem). */
function parseJsonRows<T>(content: string, toRow: (row: unknown) => T | string): { ok: true; rows: T[] } | { ok: false; line: number; problem: string } {
  const trimmed = content.trim();
  if (!trimmed) return { ok: false, line: 1, problem: 'empty' };
  let rows: { row: unknown; line: number }[];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { ok: false, line: 1, problem: 'invalid JSON' };
    }
    if (!Array.isArray(parsed)) return { ok: false, line: 1, problem: 'not an array' };
    rows = parsed.map((row: unknown, index) => ({ row, line: index + 1 }));
  } else {
    rows = [];
    for (const [index, line] of content.split(/\r?\n/).entries()) {
      if (!line.trim()) continue;
      try {
        rows.push({ row: JSON.parse(line) as unknown, line: index + 1 });
      } catch {
        return { ok: false, line: index + 1, problem: 'invalid JSON' };
      }
    }
  }
  const out: T[] = [];
  for (const { row, line } of rows) {
    const read = toRow(row);
    if (typeof read === 'string') return { ok: false, line, problem: read };
    out.push(read);
  }
  return { ok: true, rows: out };
}

function toPair(row: unknown): LabelledPair | string {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return 'not an object';
  const { query, filePath, pages, section } = row as { query?: unknown; filePath?: unknown; pages?: unknown; section?: unknown };
  if (typeof query !== 'string' || !query.trim()) return 'query must be a non-blank string';
  if (filePath !== undefined && filePath !== null && typeof filePath !== 'string') return 'filePath must be a string or null';
  const path = typeof filePath === 'string' && filePath.trim() ? filePath : null;
  if (pages !== undefined && !(Array.isArray(pages) && pages.every((p) => Number.isInteger(p) && (p as number) >= 1)))
    return 'pages must be a list of whole numbers from 1';
  if (section !== undefined && !(Array.isArray(section) && section.every((h) => typeof h === 'string' && h.trim())))
    return 'section must be a list of headings';
  return {
    query,
    filePath: path,
    ...(pages !== undefined ? { pages: pages as number[] } : {}),
    ...(section !== undefined ? { section: section as string[] } : {}),
  };
}

function toExample(row: unknown): LabelledLine | string {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return 'not an object';
  const { text, intent } = row as { text?: unknown; intent?: unknown };
  if (typeof text !== 'string' || !text.trim()) return 'text must be a non-blank string';
  if (intent !== undefined && intent !== null && typeof intent !== 'string') return 'intent must be a string or null';
  return { text, intent: typeof intent === 'string' && intent.trim() ? intent : null };
}

/** A comma- or line-separated list as the rule editor's keywords/patterns/examples fields hold it. */
export function splitList(value: string, separator: 'line' | 'comma'): string[] {
  return value
    .split(separator === 'line' ? /\r?\n/ : /[,，\n]/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
