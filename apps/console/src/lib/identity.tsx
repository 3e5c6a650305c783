import { createContext, useContext, type ReactNode } from 'react';
import type { components } from '../api/schema';

/** Who is signed in, as `GET /admin/api-keys/current` says (docs/console.md "Sign-in and keys"). */
export type Caller = components['schemas']['CurrentCallerDto'];

const CallerContext = createContext<Caller | null>(null);

export function CallerProvider({ caller, children }: { caller: Caller; children: ReactNode }) {
  return <CallerContext.Provider value={caller}>{children}</CallerContext.Provider>;
}

export function useCaller(): Caller | null {
  return useContext(CallerContext);
}

/**
 * Whether the signed-in key may write: an operator may, a viewer may not (the API answers 403 AUTH_WRONG_ROLE to
 * its writes, docs/http-edge.md "Keys"). Every write control asks this, so a viewer never sees a button that can
 * only fail. Unknown (no caller) is read-only: fail closed.
 */
export function useCanWrite(): boolean {
  const caller = useCaller();
  return caller !== null && mayWrite(caller.role);
}

export function mayWrite(role: Caller['role']): boolean {
  switch (role) {
    case 'operator':
    case 'admin':
      return true;
    case 'viewer':
    case 'client':
      return false;
  }
}
