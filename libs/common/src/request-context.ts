import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** Who made the request, for the audit log (docs/http-edge.md "Audit log"). */
export interface RequestActor {
  kind: 'api_key' | 'platform_admin';
  keyId?: string;
  name?: string;
}

interface RequestContext {
  requestId: string;
  tenantId?: string;
  actor?: RequestActor;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const RequestContextStore = {
  run<T>(requestId: string, fn: () => T): T {
    return storage.run({ requestId }, fn);
  },
  get(): RequestContext | undefined {
    return storage.getStore();
  },
  requestId(): string | undefined {
    return storage.getStore()?.requestId;
  },
  setTenant(tenantId: string): void {
    const ctx = storage.getStore();
    if (ctx) ctx.tenantId = tenantId;
  },
  setActor(actor: RequestActor): void {
    const ctx = storage.getStore();
    if (ctx) ctx.actor = actor;
  },
  actor(): RequestActor | undefined {
    return storage.getStore()?.actor;
  },
};

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honour a caller's X-Request-Id when it is sane, otherwise mint one. */
export function resolveRequestId(header: string | string[] | undefined): string {
  const candidate = Array.isArray(header) ? header[0] : header;
  return candidate && REQUEST_ID_PATTERN.test(candidate) ? candidate : randomUUID();
}
