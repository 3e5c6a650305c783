import { useI18n } from '../../i18n/i18n';
import { pageSpan, sectionPath } from '../../lib/chunk-location';

/** "p. 12–13" / "p. 12" in the operator's language; nothing for a chunk without pages (not a PDF). */
export function PagesLabel({ page, pageEnd }: { page: number | null; pageEnd: number | null }) {
  const { t } = useI18n();
  const span = pageSpan(page, pageEnd);
  switch (span.kind) {
    case 'none':
      return null;
    case 'page':
      return <span className="location-pages">{t('location.page', { page: span.page })}</span>;
    case 'range':
      return <span className="location-pages">{t('location.pages', { from: span.from, to: span.to })}</span>;
  }
}

/** The heading path "1 Basics › 1.4 Editors"; nothing without headings. */
export function SectionLabel({ section }: { section: string[] | null }) {
  const path = sectionPath(section);
  return path ? <span className="location-section">{path}</span> : null;
}
