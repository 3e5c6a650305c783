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
  const trimmed = content.trim();
  if (!trimmed) return { ok: false, line: 1, problem: 'empty' };
  if (trimmed.startsWith('[')) {
    let rows: unknown;
    try {
      rows = JSON.parse(trimmed);
    } catch {
      return { ok: false, line: 1, problem: 'invalid JSON' };
    }
    if (!Array.isArray(rows)) return { ok: false, line: 1, problem: 'not an array' };
    const examples: LabelledLine[] = [];
    for (const [index, row] of rows.entries()) {
      const example = toExample(row);
      if (typeof example === 'string') return { ok: false, line: index + 1, problem: example };
      examples.push(example);
    }
    return { ok: true, examples };
  }
  const examples: LabelledLine[] = [];
  const lines = content.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (!line.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return { ok: false, line: index + 1, problem: 'invalid JSON' };
    }
    const example = toExample(row);
    if (typeof example === 'string') return { ok: false, line: index + 1, problem: example };
    examples.push(example);
  }
  return { ok: true, examples };
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
