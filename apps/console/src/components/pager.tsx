import { useI18n } from '../i18n/i18n';

/** Cursor pagination as the API gives it: a stack of the cursors behind us, the next one from the last page. */
export function Pager({
  cursors,
  nextCursor,
  onChange,
}: {
  cursors: readonly string[];
  nextCursor: string | null | undefined;
  onChange(cursors: readonly string[]): void;
}) {
  const { t } = useI18n();
  return (
    <nav className="pager" aria-label={t('pager.label')}>
      <button type="button" disabled={cursors.length === 0} onClick={() => onChange(cursors.slice(0, -1))}>
        {t('pager.previous')}
      </button>
      <span>{t('pager.page', { page: cursors.length + 1 })}</span>
      <button type="button" disabled={!nextCursor} onClick={() => nextCursor && onChange([...cursors, nextCursor])}>
        {t('pager.next')}
      </button>
    </nav>
  );
}
