/** The classes of routes that have rate limits of their own (docs/http-edge.md "Rate limits"). */
export const RATE_CLASSES = ['chat', 'route', 'lookup', 'ingest', 'admin'] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Which class a request counts against, by its method and route path (the route's pattern, not the
 * URL with its query); null = not rate limited (health, metrics, console files, admin reads).
 */
export function rateClassOf(method: string, routePath: string): RateClass | null {
  const m = method.toUpperCase();
  const path = routePath.split('?')[0];
  if (m === 'POST' && (path === '/ai/chat' || path === '/v1/chat/completions')) return 'chat';
  if (m === 'POST' && path === '/ai/intent/route') return 'route';
  if (m === 'POST' && path === '/ai/knowledge/lookup') return 'lookup';
  if (path === '/api/sessions' || path.startsWith('/api/sessions/') || path === '/api/feedback' || path.startsWith('/api/feedback/')) return 'ingest';
  if ((path === '/admin' || path.startsWith('/admin/')) && !READS.has(m)) return 'admin';
  return null;
}
