/**
 * The Debian Reference (Debian packages debian-reference-en and debian-reference-zh-cn, installed under
 * /usr/share/debian-reference) as knowledge documents: one document per numbered section (h2/h3 heading and the
 * text up to the next one), named by its number, so both languages share the labels.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ReferenceSection {
  /** The section number, e.g. "2.6.1". */
  id: string;
  title: string;
  content: string;
  /** The chapter, e.g. "ch02" (the document's domain). */
  chapter: string;
}

export const REFERENCE_DIR = process.env.BENCH_DEBIAN_REFERENCE ?? '/usr/share/debian-reference';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function text(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** The sections of one language ("en" or "zh-cn"); throws naming the package when it is not installed. */
export function readReference(language: 'en' | 'zh-cn'): ReferenceSection[] {
  const files = existsSync(REFERENCE_DIR) ? readdirSync(REFERENCE_DIR).filter((f) => new RegExp(`^ch\\d\\d\\.${language}\\.html$`).test(f)) : [];
  if (!files.length)
    throw new Error(`no ${REFERENCE_DIR}/ch*.${language}.html: apt-get install debian-reference-en debian-reference-zh-cn (or set BENCH_DEBIAN_REFERENCE)`);
  const sections: ReferenceSection[] = [];
  for (const file of files.sort()) {
    const html = readFileSync(path.join(REFERENCE_DIR, file), 'utf8');
    const chapter = file.slice(0, 4);
    const headings = [...html.matchAll(/<h([23])[^>]*>([\s\S]*?)<\/h\1>/g)];
    headings.forEach((h, i) => {
      const heading = text(h[2]);
      const numbered = /^(\d+(?:\.\d+)+)\.?\s*(.*)$/.exec(heading);
      if (!numbered) return;
      const start = (h.index ?? 0) + h[0].length;
      const end = i + 1 < headings.length ? (headings[i + 1].index ?? html.length) : html.length;
      const content = text(html.slice(start, end));
      if (content.length < 20) return;
      sections.push({ id: numbered[1], title: numbered[2], content: content.slice(0, 60_000), chapter });
    });
  }
  return sections;
}
