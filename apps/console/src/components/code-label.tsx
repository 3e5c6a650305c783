import { useI18n } from '../i18n/i18n';
import { codeKey } from '../i18n/messages';

/** An API code in the operator's language, with the code itself as a tooltip (what the API and the logs say). */
export function CodeLabel({ kind, code }: { kind: 'reason' | 'layer'; code: string }) {
  const { t } = useI18n();
  const key = codeKey(kind, code);
  return <span title={code}>{key ? t(key) : code}</span>;
}
