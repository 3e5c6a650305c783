import { useState, type FormEvent } from 'react';
import { api, ApiError, asApiError, call } from '../api/client';
import { ErrorNotice } from '../components/states';
import { useI18n } from '../i18n/i18n';
import type { Caller } from '../lib/identity';
import { clearOperatorKey, saveOperatorKey } from '../lib/operator-key';

/**
 * Sign-in with an operator or a viewer key; one call checks the key and says who it is (`GET /admin/api-keys/current`,
 * no statement: the API reads it from the authenticated key). A client key is refused there (403).
 */
export function SignInPage({ message, onSignedIn }: { message: string | null; onSignedIn(caller: Caller): void }) {
  const { t } = useI18n();
  const [key, setKey] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [checking, setChecking] = useState(false);
  const [blank, setBlank] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!key.trim()) {
      setBlank(true);
      return;
    }
    setBlank(false);
    setChecking(true);
    saveOperatorKey(key);
    try {
      onSignedIn(await call(api.GET('/admin/api-keys/current')));
    } catch (reason) {
      clearOperatorKey();
      setError(asApiError(reason));
    } finally {
      setChecking(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <h1>{t('signIn.title')}</h1>
      <p>{t('signIn.hint')}</p>
      {message && !error && (
        <p className="state state-error" role="alert">
          {t('signIn.signedOut')}: {message}
        </p>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor="operator-key">{t('signIn.key')}</label>
        <input
          id="operator-key"
          name="operator-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          aria-invalid={blank}
          aria-describedby={blank ? 'operator-key-error' : undefined}
        />
        {blank && (
          <p id="operator-key-error" className="field-error">
            {t('signIn.keyRequired')}
          </p>
        )}
        <button type="submit" disabled={checking}>
          {checking ? t('signIn.checking') : t('signIn.submit')}
        </button>
      </form>
      {error && <ErrorNotice error={error} />}
    </main>
  );
}
