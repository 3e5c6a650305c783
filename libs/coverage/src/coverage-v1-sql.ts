import { GAP_TEXT_REMOVABLE } from './gap-text.js';
import { HUMAN_ESCALATION_PHRASES, NO_ANSWER_PHRASES, RETRIEVAL_GAP_PHRASES } from './evaluator/coverage-evaluator.v1.js';

/**
 * Evaluator v1 and the gap key as SQL expressions, for the set-based backfill (docs/hot-paths.md,
 * "Coverage backfill"). Pure: builds SQL text from the same constants and the same regular expression
 * the TypeScript evaluator uses, so the two cannot drift apart silently.
 *
 * Where SQL could differ from JavaScript, the row is not decided in SQL (`fast = false`) and goes to the
 * TypeScript evaluator instead:
 * - the gap key: JavaScript lower-cases with Unicode case mapping, PostgreSQL's `lower()` follows the
 *   database locale (ASCII only under C). SQL decides only queries whose NFKC form stays inside an
 *   alphabet where the two agree: ASCII, general punctuation, CJK symbols and punctuation, kana and CJK
 *   ideographs (no cased letter outside ASCII). Its removable characters are enumerated from
 *   `GAP_TEXT_REMOVABLE` itself.
 * - references that are not a list, or a score that is not a JSON number within ±1e300 (JavaScript reads
 *   1e400 as Infinity and the evaluator refuses it): the evaluator reports these sessions as rejected.
 */

/** Code point ranges of the SQL alphabet (inclusive). */
export const SQL_GAP_ALPHABET: readonly (readonly [number, number])[] = [
  [0x0001, 0x007f],
  [0x2000, 0x206f],
  [0x3000, 0x30ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
];

const hex = (c: number): string => `\\u${c.toString(16).padStart(4, '0')}`;

function bracket(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');
}

/** The characters of the SQL alphabet that `normalizeGapText` removes, as runs of code points. */
export function removableRuns(): [number, number][] {
  const test = new RegExp(GAP_TEXT_REMOVABLE.source, 'u');
  const runs: [number, number][] = [];
  for (const [a, b] of SQL_GAP_ALPHABET) {
    for (let c = a; c <= b; c++) {
      if (!test.test(String.fromCodePoint(c))) continue;
      const last = runs[runs.length - 1];
      if (last && last[1] === c - 1) last[1] = c;
      else runs.push([c, c]);
    }
  }
  return runs;
}

/** What `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator). */
export const JS_TRIM_CHARACTERS = '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const anyPhrase = (column: string, phrases: readonly string[]): string => `(${phrases.map((p) => `strpos(${column}, ${quote(p)}) > 0`).join(' OR ')})`;

/** SQL regular expressions (bracket expressions of \uXXXX escapes). */
export const SQL_OUTSIDE_ALPHABET = `[^${bracket(SQL_GAP_ALPHABET)}]`;
export const SQL_REMOVABLE = `[${bracket(removableRuns())}]`;

/**
 * Columns computed per candidate row `p` (columns id, created_at, channel, query, answer, refs, media,
 * knowledge_searched): `fast`, `reference_count`, `top_score`, `reason_code`, `verdict`, `gap_key`. Constants only
 * (JS_TRIM_CHARACTERS and the phrases are literals), so the text carries no parameters.
 */
export function v1DecisionSql(): { lateral: string; columns: string } {
  const trim = quote(JS_TRIM_CHARACTERS);
  // Per row: the references checked and scored in one pass, the image test, the normalised query.
  const lateral = `CROSS JOIN LATERAL (
      SELECT CASE WHEN p.refs IS NULL OR jsonb_typeof(p.refs) = 'null' THEN 0
                  WHEN jsonb_typeof(p.refs) = 'array' THEN jsonb_array_length(p.refs) END AS reference_count,
             sc.scores_ok, sc.max_score,
             EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.media) = 'array' THEN p.media ELSE '[]'::jsonb END) m
                      WHERE jsonb_typeof(m.value->'type') = 'string' AND translate(btrim(m.value->>'type', ${trim}), 'IMAGE', 'image') = 'image') AS has_image,
             normalize(p.query, NFKC) AS nq,
             COALESCE(p.answer, '') AS ans
        FROM (SELECT COALESCE(bool_and(r.ok), true) AS scores_ok, max(r.score) AS max_score
                FROM (SELECT CASE WHEN jsonb_typeof(e.value->'score') = 'number' THEN (e.value->'score')::numeric BETWEEN -1e300 AND 1e300 ELSE false END AS ok,
                             CASE WHEN jsonb_typeof(e.value->'score') = 'number' AND (e.value->'score')::numeric BETWEEN -1e300 AND 1e300
                                  THEN (e.value->>'score')::float8 END AS score
                        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.refs) = 'array' THEN p.refs ELSE '[]'::jsonb END) e) r) sc
      OFFSET 0
    ) f
    CROSS JOIN LATERAL (
      SELECT (f.reference_count IS NOT NULL AND f.scores_ok AND f.nq !~ '${SQL_OUTSIDE_ALPHABET}') AS fast,
             CASE WHEN ${anyPhrase('f.ans', NO_ANSWER_PHRASES)} OR (${anyPhrase('f.ans', RETRIEVAL_GAP_PHRASES)} AND ${anyPhrase('f.ans', HUMAN_ESCALATION_PHRASES)})
                    THEN 'uncovered_explicit_no_answer'
                  WHEN f.has_image THEN CASE WHEN f.reference_count > 0 THEN 'covered_has_references'
                                             WHEN COALESCE(p.knowledge_searched, false) THEN 'uncovered_no_references'
                                             ELSE 'covered_visual_recognition' END
                  WHEN f.reference_count = 0 THEN CASE WHEN COALESCE(p.knowledge_searched, false) THEN 'uncovered_no_references'
                                                       ELSE 'covered_non_knowledge_response' END
                  ELSE 'covered_has_references' END AS reason_code
      OFFSET 0
    ) d`;
  const columns = `d.fast, f.reference_count, d.reason_code,
    CASE WHEN d.reason_code IN ('uncovered_explicit_no_answer', 'uncovered_no_references') THEN 'uncovered' ELSE 'covered' END AS verdict,
    CASE WHEN d.fast THEN GREATEST(0::float8, COALESCE(f.max_score, 0)) END AS top_score,
    CASE WHEN d.fast THEN regexp_replace(lower(f.nq), '${SQL_REMOVABLE}', '', 'g') END AS gap_key`;
  return { lateral, columns };
}
