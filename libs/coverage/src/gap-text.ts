/**
 * Grouping key for knowledge gaps (docs/spec/coverage.md): two user queries that differ only in letter case,
 * full-/half-width form, whitespace or punctuation (Chinese or ASCII) group together.
 *
 * Steps: NFKC (full-width letters, digits, punctuation and the ideographic space become their ASCII
 * forms; compatibility characters fold) → lower case → drop whitespace, Unicode punctuation (\p{P},
 * which covers 。，、；：？！“”‘’（）【】《》…·—), the ASCII symbols POSIX counts as punctuation
 * ($+<=>^`|~) and invisible format/control characters (zero-width space, BOM). Letters, digits,
 * CJK characters, emoji and other symbols stay. No simplified/traditional conversion, no stemming:
 * "reset arm" and "reset arms" are different gaps. Deliberate consequence of punctuation
 * insensitivity: "E1.5" and "E15" share a key. Pure and idempotent.
 */
export const GAP_TEXT_REMOVABLE = /[\s\p{P}$+<=>^`|~\p{Cc}\p{Cf}]/gu;

export function normalizeGapText(query: string | null | undefined): string {
  if (!query) return '';
  const folded = query.normalize('NFKC');
  const lower = folded.toLowerCase();
  // Lower-casing can (rarely) produce a non-NFKC sequence; re-normalize only when it changed something.
  return (lower === folded ? lower : lower.normalize('NFKC')).replace(GAP_TEXT_REMOVABLE, '');
}
