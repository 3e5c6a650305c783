import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { href, readState, writeState, type Choices, type PageState, type Route } from './route';

const RouteContext = createContext<Route | null>(null);

/** The route shown (app.tsx follows `hashchange`), for the pages to read their state from. */
export function RouteProvider({ route, children }: { route: Route; children: ReactNode }) {
  return <RouteContext.Provider value={route}>{children}</RouteContext.Provider>;
}

/**
 * A list page's filters and cursors, kept in the URL (`#/<page>?…`): a reload, a shared link and the browser's
 * back and forward show the same list. `defaults` are taken once (the first render's), like `useState`'s. Setting
 * the state navigates (a new history entry), which renders the page again with it; parameters of another list on
 * the same page stay.
 */
export function useUrlState<S extends PageState>(initialDefaults: S | (() => S), choices: Choices<S> = {}): [S, (next: S) => void] {
  const route = useContext(RouteContext);
  if (!route) throw new Error('useUrlState outside RouteProvider');
  const [defaults] = useState(initialDefaults);
  const { page, id, search } = route;
  // The defaults and choices are fixed for the page's life: only the URL changes the state.
  const state = useMemo(() => readState(search, defaults, choices), [search, defaults]);
  const setState = (next: S) => {
    window.location.hash = href(page, id, writeState(next, defaults, search));
  };
  return [state, setState];
}
