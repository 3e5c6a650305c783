import { useState } from 'react';
import { api, ApiError, asApiError, call } from '../api/client';
import { useI18n } from '../i18n/i18n';
import { href } from '../lib/route';
import { ErrorNotice } from './states';

/** A session id that opens its conversation (one call on click: the session names its conversation). */
export function SessionLink({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const [error, setError] = useState<ApiError | null>(null);
  const open = async () => {
    try {
      const session = await call(api.GET('/api/sessions/{id}', { params: { path: { id: sessionId } } }));
      window.location.hash = href('conversations', session.conversationId);
    } catch (reason) {
      setError(asApiError(reason));
    }
  };
  return (
    <>
      <button type="button" className="link" onClick={() => void open()} title={t('gaps.openSession')}>
        <code>{sessionId.slice(0, 8)}</code>
      </button>
      {error && <ErrorNotice error={error} />}
    </>
  );
}
