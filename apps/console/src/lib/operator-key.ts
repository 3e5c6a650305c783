import type { Caller } from './identity';

// The operator key lives in sessionStorage only: gone when the tab closes, never in a URL or a log (docs/console.md).
const STORAGE_KEY = 'arbiter.operatorKey';
// Who the key is (GET /admin/api-keys/current), beside it so a reload makes no extra call; a key's name and role never
// change. Only the console's own display: the API checks every call against the key itself.
const CALLER_KEY = 'arbiter.caller';

export function readOperatorKey(): string | null {
  return window.sessionStorage.getItem(STORAGE_KEY);
}

export function saveOperatorKey(key: string): void {
  window.sessionStorage.setItem(STORAGE_KEY, key.trim());
}

export function clearOperatorKey(): void {
  window.sessionStorage.removeItem(STORAGE_KEY);
  window.sessionStorage.removeItem(CALLER_KEY);
}

export function saveCaller(caller: Caller): void {
  window.sessionStorage.setItem(CALLER_KEY, JSON.stringify(caller));
}

/** The caller saved at sign-in; null when absent or not what was saved (then it is asked again). */
export function readCaller(): Caller | null {
  const text = window.sessionStorage.getItem(CALLER_KEY);
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<Caller> | null;
    return value && typeof value.role === 'string' && (typeof value.name === 'string' || value.name === null) ? (value as Caller) : null;
  } catch {
    return null;
  }
}
