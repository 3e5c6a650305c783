// The operator key lives in sessionStorage only: gone when the tab closes, never in a URL or a log (docs/console.md).
const STORAGE_KEY = 'arbiter.operatorKey';

export function readOperatorKey(): string | null {
  return window.sessionStorage.getItem(STORAGE_KEY);
}

export function saveOperatorKey(key: string): void {
  window.sessionStorage.setItem(STORAGE_KEY, key.trim());
}

export function clearOperatorKey(): void {
  window.sessionStorage.removeItem(STORAGE_KEY);
}
