import { lazy, Suspense, useEffect, useState } from 'react';
import { onAuthFailure } from './api/client';
import { useI18n } from './i18n/i18n';
import { clearOperatorKey, readOperatorKey } from './lib/operator-key';
import { href, PAGES, parseRoute, type PageName, type Route } from './lib/route';
import { ConversationsPage } from './pages/conversations';
import { GapsPage } from './pages/gaps';
import { IntentsPage } from './pages/intents';
import { JobsPage } from './pages/jobs';
import { KnowledgePage } from './pages/knowledge';
import { ReviewPage } from './pages/review';
import { WebhooksPage } from './pages/webhooks';
import { SignInPage } from './pages/sign-in';
import { Loading } from './components/states';

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
  const [authMessage, setAuthMessage] = useState<string | null>(null);
  useEffect(
    () =>
      onAuthFailure((error) => {
        setAuthMessage(error.message);
        setSignedIn(false);
      }),
    [],
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
          onSignedIn={() => {
            setAuthMessage(null);
            setSignedIn(true);
          }}
        />
      </div>
    );
  }
  return (
    <div className="shell">
      <header className="top-bar">
        <span className="brand">{t('shell.title')}</span>
        <div className="top-actions">
          <LanguageSwitch />
          <button
            type="button"
            onClick={() => {
              clearOperatorKey();
              setSignedIn(false);
            }}
          >
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
          <PageView key={`${route.page}/${route.id ?? ''}`} route={route} />
        </Suspense>
      </main>
    </div>
  );
}
