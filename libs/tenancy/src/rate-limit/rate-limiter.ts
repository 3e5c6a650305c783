import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { AuditLog } from '../audit/audit-log.js';
import { AddressFailures } from './address-failures.js';
import { RateLimitRepository, type TenantLimitOverride } from './rate-limit.repository.js';
import { RATE_CLASSES, rateClassOf, type RateClass } from './route-class.js';
import { WindowBudgets, type BudgetDecision } from './window-budgets.js';

export interface ClassLimits {
  /** Requests per minute for the whole tenant (0 = unlimited). */
  perMinute: number;
  /** Requests per minute for each key of the tenant (0 = unlimited). */
  perKeyPerMinute: number;
}
export type EffectiveLimits = Record<RateClass, ClassLimits>;

export interface LimitDecision {
  allowed: boolean;
  /** `RateLimit-Policy` and `RateLimit` header values (IETF httpapi draft), and `Retry-After` when refused. */
  headers: Record<string, string>;
}

const WINDOW_MS = 60_000;
/** How long the in-memory copy of the per-tenant overrides is used before it is read again. */
const OVERRIDES_FRESH_MS = 5_000;
const SWEEP_MS = 5 * 60_000;

/**
 * Per-key and per-tenant rate limits by route class (docs/http-edge.md "Rate limits"), and the
 * per-address limit of failed credential checks. Counting costs no database statement per request:
 * in memory on the embedded database (one process), in leases of the shared table on PostgreSQL.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimiter');
  private readonly budgets: WindowBudgets;
  private readonly failures: AddressFailures;
  private overrides = new Map<string, Map<RateClass, TenantLimitOverride>>();
  private overridesAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;
  /** Reads of the overrides are numbered; per tenant, the number of the read its copy came from (when newer than a full refresh). */
  private reads = 0;
  private fullRead = 0;
  private readonly appliedRead = new Map<string, number>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly defaults: AppConfig['rateLimits'];

  constructor(
    private readonly repository: RateLimitRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {
    this.budgets = new WindowBudgets({ windowMs: WINDOW_MS, store: config.database.embedded ? null : repository });
    this.defaults = config.rateLimits;
    this.failures = new AddressFailures(this.defaults.authFailuresPerMinute);
  }

  async onModuleInit(): Promise<void> {
    await this.refreshOverrides().catch((error: unknown) => this.logger.warn({ msg: 'rate limit overrides not loaded', error: String(error) }));
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweepTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  /** The limits that hold for a tenant: its overrides over the configured defaults. */
  effectiveLimits(tenantId: string): EffectiveLimits {
    this.refreshOverridesIfStale();
    return this.limitsOf([...(this.overrides.get(tenantId)?.values() ?? [])]);
  }

  /** The configured defaults under a tenant's overrides. */
  private limitsOf(overrides: TenantLimitOverride[]): EffectiveLimits {
    const own = new Map(overrides.map((o) => [o.routeClass, o]));
    return Object.fromEntries(
      RATE_CLASSES.map((c) => [
        c,
        { perMinute: own.get(c)?.perMinute ?? this.defaults.perTenant[c], perKeyPerMinute: own.get(c)?.perKeyPerMinute ?? this.defaults.perKey[c] },
      ]),
    ) as EffectiveLimits;
  }

  private limitsFor(tenantId: string, routeClass: RateClass): ClassLimits {
    this.refreshOverridesIfStale();
    const own = this.overrides.get(tenantId)?.get(routeClass);
    return { perMinute: own?.perMinute ?? this.defaults.perTenant[routeClass], perKeyPerMinute: own?.perKeyPerMinute ?? this.defaults.perKey[routeClass] };
  }

  /**
   * Counts a request of an authenticated key against its key's and its tenant's budget for the route's
   * class. Null when no limit applies (no headers, nothing counted).
   */
  async admit(tenantId: string, keyId: string, method: string, routePath: string): Promise<LimitDecision | null> {
    const routeClass = rateClassOf(method, routePath);
    if (routeClass === null) return null;
    const limits = this.limitsFor(tenantId, routeClass);
    if (limits.perMinute === 0 && limits.perKeyPerMinute === 0) return null;
    const decisions: [string, BudgetDecision][] = [];
    if (limits.perKeyPerMinute > 0) {
      const d = await this.budgets.take(tenantId, `key:${keyId}:${routeClass}`, limits.perKeyPerMinute);
      decisions.push([`${routeClass}-key`, d]);
      if (!d.allowed) return toDecision(decisions);
    }
    if (limits.perMinute > 0) decisions.push([`${routeClass}-tenant`, await this.budgets.take(tenantId, `tenant:${routeClass}`, limits.perMinute)]);
    return toDecision(decisions);
  }

  /** Counts a failed credential check of `address`; a `Retry-After` in seconds when it is past the limit. */
  noteAuthFailure(address: string): number | null {
    return this.failures.record(address) ? this.failures.retryAfterSeconds() : null;
  }

  /** Sets a tenant's overrides (absent fields keep their value, null returns to the default); known here at once, elsewhere within 5 s. */
  async setOverrides(
    tenantId: TenantId,
    changes: Partial<Record<RateClass, Partial<Record<keyof ClassLimits, number | null>>>>,
  ): Promise<EffectiveLimits | null> {
    const changed = RATE_CLASSES.filter((c) => changes[c] !== undefined);
    const stored = await this.repository.setOverrides(
      tenantId,
      changed.map((c) => ({ routeClass: c, ...changes[c] })),
      (tx, before, after) => {
        const effectiveBefore = this.limitsOf(before);
        const own = new Map(after.map((o) => [o.routeClass, o]));
        return this.audit.record(tx, tenantId, {
          action: 'update',
          resourceType: 'tenant_limits',
          resourceId: tenantId,
          label: 'rate limits',
          summary: {
            before: Object.fromEntries(changed.map((c) => [c, effectiveBefore[c]])),
            after: Object.fromEntries(
              changed.map((c) => [c, { perMinute: own.get(c)?.perMinute ?? null, perKeyPerMinute: own.get(c)?.perKeyPerMinute ?? null }]),
            ),
          },
        });
      },
    );
    if (stored === null) return null;
    // Read again after the commit: a concurrent change of another class committed meanwhile is in this
    // read, not in the transaction's own snapshot of the rows (docs/http-edge.md "Rate limits").
    return this.limitsOf(await this.reloadTenant(tenantId));
  }

  /** One tenant's overrides read now; kept unless a read started later has already been applied. */
  private async reloadTenant(tenantId: TenantId): Promise<TenantLimitOverride[]> {
    const read = ++this.reads;
    const rows = await this.repository.overridesOf(tenantId);
    if (read > this.fullRead && (this.appliedRead.get(tenantId) ?? 0) < read) {
      this.appliedRead.set(tenantId, read);
      this.overrides.set(tenantId, new Map(rows.map((o) => [o.routeClass, o])));
    }
    return rows;
  }

  private refreshOverridesIfStale(): void {
    if (Date.now() - this.overridesAt < OVERRIDES_FRESH_MS) return;
    void this.refreshOverrides().catch((error: unknown) => this.logger.warn({ msg: 'rate limit overrides not refreshed', error: String(error) }));
  }

  private refreshOverrides(): Promise<void> {
    this.refreshing ??= (async () => {
      const startedAt = Date.now();
      const read = ++this.reads;
      const rows = await this.repository.allOverrides();
      const next = new Map<string, Map<RateClass, TenantLimitOverride>>();
      for (const row of rows) {
        const own = next.get(row.tenantId) ?? new Map<RateClass, TenantLimitOverride>();
        own.set(row.routeClass, row);
        next.set(row.tenantId, own);
      }
      // A tenant read again after this read started (its own change) keeps that newer copy.
      for (const [tenantId, applied] of this.appliedRead) {
        if (applied > read) {
          const own = this.overrides.get(tenantId);
          if (own) next.set(tenantId, own);
          else next.delete(tenantId);
        } else this.appliedRead.delete(tenantId);
      }
      this.overrides = next;
      this.fullRead = read;
      this.overridesAt = startedAt;
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async sweep(): Promise<void> {
    if (this.config.database.embedded) return;
    await this.repository.deleteWindowsBefore(new Date(Date.now() - 2 * WINDOW_MS)).catch((error: unknown) => {
      this.logger.warn({ msg: 'old rate limit windows not deleted', error: String(error) });
    });
  }
}

/** The headers of the IETF httpapi RateLimit draft: every policy that applied, and `Retry-After` when one refused. */
export function toDecision(decisions: [string, BudgetDecision][]): LimitDecision {
  const refused = decisions.find(([, d]) => !d.allowed);
  const headers: Record<string, string> = {
    'ratelimit-policy': decisions.map(([name, d]) => `"${name}";q=${d.limit};w=60`).join(', '),
    ratelimit: decisions.map(([name, d]) => `"${name}";r=${d.remaining};t=${d.resetSeconds}`).join(', '),
  };
  if (refused) headers['retry-after'] = String(refused[1].resetSeconds);
  return { allowed: refused === undefined, headers };
}
