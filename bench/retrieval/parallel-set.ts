/**
 * A parallel Chinese–English retrieval set from the Debian Reference (Osamu Aoki et al., GPL-2+), as
 * Debian ships it in `debian-reference-en` and `debian-reference-zh-cn` (`apt-get install
 * debian-reference-en debian-reference-zh-cn`; HTML under /usr/share/debian-reference). Both languages
 * are built from one DocBook source, so every section carries the same anchor id in both: a section's
 * text in one language is a document, its title in each language is a question (numbering removed).
 * Sections whose Chinese title is untranslated or whose text is short are left out. Nothing is
 * committed: the set is read from the installed packages on each run (bench/retrieval/README.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';

export interface ParallelSection {
  id: string;
  chapter: { en: string; zh: string };
  title: { en: string; zh: string };
  text: { en: string; zh: string };
}

export const DEBIAN_REFERENCE_DIR = process.env.BENCH_DEBIAN_REFERENCE ?? '/usr/share/debian-reference';
const MIN_TEXT = 150;
const MAX_TEXT = 3000;

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
const unnumbered = (title: string) =>
  clean(title.replace(/^(?:第\s*\d+\s*章|Chapter\s+\d+\.|Appendix\s+[A-Z]\.|附录\s*[A-Z]\.?|(?:[A-Z]\.)?\d+(?:\.\d+)*\.)\s*/, ''));

function sections(file: string): Map<string, { title: string; text: string; chapter: string }> {
  const { document } = parseHTML(readFileSync(file, 'utf8'));
  const chapter = clean(document.querySelector('h1.title')?.textContent ?? '');
  const out = new Map<string, { title: string; text: string; chapter: string }>();
  for (const div of document.querySelectorAll('div.section')) {
    const heading = div.querySelector('.titlepage h2, .titlepage h3, .titlepage h4, .titlepage h5');
    const id = heading?.querySelector('a[id]')?.getAttribute('id');
    if (!heading || !id) continue;
    // The section's own text: its children but the title and its subsections.
    const own = [...div.children].filter((c) => !c.classList.contains('titlepage') && !c.classList.contains('section'));
    const text = clean(own.map((c) => c.textContent ?? '').join(' ')).slice(0, MAX_TEXT);
    out.set(id, { title: unnumbered(heading.textContent ?? ''), text, chapter: unnumbered(chapter) });
  }
  return out;
}

/** The aligned sections of every chapter present in both languages; null when the packages are not installed. */
export function debianReferenceSections(dir = DEBIAN_REFERENCE_DIR): ParallelSection[] | null {
  if (!existsSync(dir)) return null;
  const chapters = readdirSync(dir)
    .filter((f) => /^(ch\d+|apa)\.en\.html$/.test(f))
    .filter((f) => existsSync(path.join(dir, f.replace('.en.', '.zh-cn.'))))
    .sort();
  if (!chapters.length) return null;
  const out: ParallelSection[] = [];
  const seen = new Set<string>();
  for (const f of chapters) {
    const en = sections(path.join(dir, f));
    const zh = sections(path.join(dir, f.replace('.en.', '.zh-cn.')));
    for (const [id, e] of en) {
      const z = zh.get(id);
      if (!z || seen.has(e.title.toLowerCase())) continue;
      // Translated titles only (at least two Chinese characters), and enough text in both languages.
      if ((z.title.match(/[\u4e00-\u9fff]/g) ?? []).length < 2 || !/[a-z]{3}/i.test(e.title)) continue;
      if (e.text.length < MIN_TEXT || z.text.length < MIN_TEXT / 3) continue;
      seen.add(e.title.toLowerCase());
      out.push({ id, chapter: { en: e.chapter, zh: z.chapter }, title: { en: e.title, zh: z.title }, text: { en: e.text, zh: z.text } });
    }
  }
  return out;
}
