export const PAGES = ['overview', 'gaps', 'review', 'conversations', 'intents', 'knowledge', 'jobs', 'webhooks', 'keys', 'audit'] as const;
export type PageName = (typeof PAGES)[number];

export interface Route {
  page: PageName;
  /** The id after the page, e.g. #/conversations/<id>. */
  id: string | null;
  /** The page's state after `?` (its filters and cursors), as written by `writeState`; '' when none. */
  search: string;
}

/**
 * `#/conversations/abc` → {page: 'conversations', id: 'abc', search: ''}; `#/jobs?status=failed` → {page: 'jobs',
 * id: null, search: 'status=failed'}; anything unknown is the overview (without the unknown page's state).
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const mark = path.indexOf('?');
  const [page = '', id = ''] = (mark < 0 ? path : path.slice(0, mark)).split('/');
  const known = (PAGES as readonly string[]).includes(page) ? (page as PageName) : 'overview';
  const search = known === page && mark >= 0 ? path.slice(mark + 1) : '';
  return { page: known, id: known === page && id ? decodeURIComponent(id) : null, search };
}

export function href(page: PageName, id?: string | null, search = ''): string {
  const path = id ? `#/${page}/${encodeURIComponent(id)}` : `#/${page}`;
  return search ? `${path}?${search}` : path;
}

/**
 * A list page's state kept in the URL (docs/console.md "Filters in the URL"): text fields (a filter as typed, a
 * choice) and lists (the stack of pagination cursors behind the page shown, a repeated parameter).
 */
export type PageState = Readonly<Record<string, string | readonly string[]>>;

/** For a field backed by a `<select>`: the values it may take (anything else in the URL reads as the default). */
export type Choices<S extends PageState> = Partial<Record<keyof S, readonly string[]>>;

/**
 * The state in a route's `search`: each field of `defaults` from its parameter (a list from all its repetitions);
 * a field absent, or a choice not among its values, is the default. Unknown parameters are ignored.
 */
export function readState<S extends PageState>(search: string, defaults: S, choices: Choices<S> = {}): S {
  const params = new URLSearchParams(search);
  const state: Record<string, string | readonly string[]> = {};
  for (const [name, fallback] of Object.entries(defaults)) {
    if (typeof fallback !== 'string') {
      state[name] = params.has(name) ? params.getAll(name) : fallback;
      continue;
    }
    const value = params.get(name);
    const allowed = choices[name];
    state[name] = value === null || (allowed !== undefined && !allowed.includes(value)) ? fallback : value;
  }
  return state as S;
}

/**
 * The `search` of a state: the fields that differ from their default, in the order of `defaults`; '' when none.
 * Parameters of `base` that are not fields of this state stay, first (two lists on one page keep each other's).
 */
export function writeState<S extends PageState>(state: S, defaults: S, base = ''): string {
  const params = new URLSearchParams(base);
  for (const name of Object.keys(defaults)) params.delete(name);
  for (const [name, fallback] of Object.entries(defaults)) {
    const value = state[name];
    if (typeof value === 'string') {
      if (value !== fallback) params.set(name, value);
    } else if (typeof fallback === 'string' || value.length !== fallback.length || value.some((item, index) => item !== fallback[index])) {
      for (const item of value) params.append(name, item);
    }
  }
  return params.toString();
}
