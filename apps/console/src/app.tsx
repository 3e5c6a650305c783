import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { api, call, onAuthFailure } from './api/client';
import { useUnscopedQuery } from './api/queries';
import { useI18n } from './i18n/i18n';
import { clearOperatorKey, readCaller, readOperatorKey, saveCaller } from './lib/operator-key';
import { href, PAGES, parseRoute, type PageName, type Route } from './lib/route';
import { ConversationsPage } from './pages/conversations';
import { GapsPage } from './pages/gaps';
import { IntentsPage } from './pages/intents';
import { JobsPage } from './pages/jobs';
import { KnowledgePage } from './pages/knowledge';
import { ReviewPage } from './pages/review';
import { WebhooksPage } from './pages/webhooks';
import { ApiKeysPage } from './pages/api-keys';
import { AuditPage } from './pages/audit';
import { SignInPage } from './pages/sign-in';
import { Async, Loading } from './components/states';
import { CallerProvider, type Caller } from './lib/identity';
import { RouteProvider } from './lib/url-state';

// ECharts is most of the console's JavaScript and only the Overview draws charts: it loads with that page,
// so sign-in and the other pages do not wait for it (docs/console.md "Budgets").
const OverviewPage = lazy(() => import('./pages/overview').then((module) => ({ default: module.OverviewPage })));

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

function PageView({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <OverviewPage />;
    case 'gaps':
      return <GapsPage />;
    case 'review':
      return <ReviewPage />;
    case 'conversations':
      return <ConversationsPage id={route.id} />;
    case 'intents':
      return <IntentsPage />;
    case 'knowledge':
      return <KnowledgePage id={route.id} />;
    case 'jobs':
      return <JobsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'keys':
      return <ApiKeysPage />;
    case 'audit':
      return <AuditPage />;
  }
}

function LanguageSwitch() {
  const { language, setLanguage, t } = useI18n();
  return (
    // The visible name is the language it switches to, written in that language (axe: label-content-name-mismatch).
    <button type="button" className="language-switch" onClick={() => setLanguage(language === 'zh' ? 'en' : 'zh')} title={t('shell.switchLanguage')}>
      <span lang={language === 'zh' ? 'en' : 'zh-CN'}>{language === 'zh' ? 'English' : '中文'}</span>
    </button>
  );
}

export function App() {
  const { t } = useI18n();
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => readOperatorKey() !== null);
  // Who signed in: from the sign-in check, kept beside the key; asked again when the key is there without it.
  const [caller, setCallerState] = useState<Caller | null>(() => (readOperatorKey() === null ? null : readCaller()));
  const setCaller = useCallback((next: Caller | null) => {
    if (next) saveCaller(next);
    setCallerState(next);
  }, []);
  const [authMessage, setAuthMessage] = useState<string | null>(null);
  // Signed out (by the button, or a key refused): nothing read with that key stays in memory.
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn, queryClient]);
  useEffect(
    () =>
      onAuthFailure((error) => {
        setAuthMessage(error.message);
        setCaller(null);
        setSignedIn(false);
      }),
    [setCaller],
  );
  useEffect(() => {
    document.title = `${t(`nav.${route.page}` as const)} · Arbiter`;
  }, [route.page, t]);

  if (!signedIn) {
    return (
      <div className="sign-in-shell">
        <header className="sign-in-header">
          <span className="brand">Arbiter</span>
          <LanguageSwitch />
        </header>
        <SignInPage
          message={authMessage}
          onSignedIn={(signedInAs) => {
            setAuthMessage(null);
            setCaller(signedInAs);
            setSignedIn(true);
          }}
        />
      </div>
    );
  }
  const signOut = () => {
    clearOperatorKey();
    setCaller(null);
    setSignedIn(false);
  };
  if (!caller) return <ResumeSession onCaller={setCaller} />;
  return (
    <CallerProvider caller={caller}>
      <div className="shell">
        <header className="top-bar">
          <span className="brand">{t('shell.title')}</span>
          <div className="top-actions">
            <span className="signed-in-as" data-testid="signed-in-as">
              {t('shell.signedInAs', { name: caller.name ?? t('role.admin') })}{' '}
              <span className={`badge badge-role-${caller.role}`}>{t(`role.${caller.role}` as const)}</span>
            </span>
            <LanguageSwitch />
            <button type="button" onClick={signOut}>
              {t('shell.signOut')}
            </button>
          </div>
        </header>
        <nav className="side-nav" aria-label={t('shell.navigation')}>
          <ul>
            {PAGES.map((page: PageName) => (
              <li key={page}>
                <a href={href(page)} aria-current={route.page === page ? 'page' : undefined}>
                  {t(`nav.${page}` as const)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main className="content" id="main">
          <Suspense fallback={<Loading />}>
            {/* A page keeps its component while only its state after "?" changes (a filter, a cursor). */}
            <RouteProvider route={route}>
              <PageView key={`${route.page}/${route.id ?? ''}`} route={route} />
            </RouteProvider>
          </Suspense>
        </main>
      </div>
    </CallerProvider>
  );
}

/** The key is in sessionStorage but who it is was not kept beside it: asked once (a 401/403 signs out). */
function ResumeSession({ onCaller }: { onCaller(caller: Caller): void }) {
  const state = useUnscopedQuery('current-caller', () => call(api.GET('/admin/api-keys/current')));
  useEffect(() => {
    if (state.data) onCaller(state.data);
  }, [state.data, onCaller]);
  return (
    <main className="sign-in" id="main">
      <Async state={state}>{() => <Loading />}</Async>
    </main>
  );
}
