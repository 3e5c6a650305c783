export const PAGES = ['overview', 'gaps', 'review', 'conversations', 'intents', 'knowledge', 'jobs', 'webhooks', 'keys', 'audit'] as const;
export type PageName = (typeof PAGES)[number];

export interface Route {
  page: PageName;
  /** The id after the page, e.g. #/conversations/<id>. */
  id: string | null;
}

/** `#/conversations/abc` → {page: 'conversations', id: 'abc'}; anything unknown is the overview. */
export function parseRoute(hash: string): Route {
  const [page = '', id = ''] = hash.replace(/^#\/?/, '').split('/');
  const known = (PAGES as readonly string[]).includes(page) ? (page as PageName) : 'overview';
  return { page: known, id: known === page && id ? decodeURIComponent(id) : null };
}

export function href(page: PageName, id?: string): string {
  return id ? `#/${page}/${encodeURIComponent(id)}` : `#/${page}`;
}
