/**
 * The text a chunk is indexed and embedded with (docs/retrieval.md "Chunk context"): a chunk of a file
 * is read under its section's headings, so its heading path goes before its text — a passage of
 * "1.4.7 Setting a default text editor" that never repeats "editor" still matches it. Documents
 * without sections (JSON) are indexed with their text alone. Pure: no Nest, no database.
 */
export const SECTION_SEPARATOR = ' › ';

export function chunkContextText(content: string, section?: readonly string[] | null): string {
  const path = (section ?? []).map((h) => h.trim()).filter((h) => h.length > 0);
  return path.length ? `${path.join(SECTION_SEPARATOR)}\n${content}` : content;
}
