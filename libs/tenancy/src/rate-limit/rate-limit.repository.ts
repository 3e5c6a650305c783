import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { Database, sql, type Tx } from '@arbiter/database';
import type { RateClass } from './route-class.js';
import type { LeaseStore } from './window-budgets.js';

export interface TenantLimitOverride {
  tenantId: string;
  routeClass: RateClass;
  perMinute: number | null;
  perKeyPerMinute: number | null;
}

/** The rate limiter's tables (migration 0251), on the typed data layer (docs/data-layer.md). */
@Injectable()
export class RateLimitRepository implements LeaseStore {
  constructor(private readonly database: Database) {}

  /**
   * One lease: the row is created for a new window, then grows by what is granted, never past the
   * limit. The row lock serialises replicas reserving the same bucket at once.
   */
  async reserve(tenantId: string, bucket: string, windowStart: number, want: number, limit: number): Promise<{ granted: number; reserved: number }> {
    const start = new Date(windowStart).toISOString();
    await sql`
      INSERT INTO rate_limit_window (tenant_id, bucket, window_start, reserved)
      VALUES (${tenantId}::uuid, ${bucket}, ${start}::timestamptz, 0)
      ON CONFLICT (tenant_id, bucket, window_start) DO NOTHING`.execute(this.database.db);
    const result = await sql<{ granted: number; reserved: number }>`
      UPDATE rate_limit_window w
         SET reserved = w.reserved + g.n
        FROM (SELECT greatest(0, least(${want}::int, ${limit}::int - reserved)) AS n
                FROM rate_limit_window
               WHERE tenant_id = ${tenantId}::uuid AND bucket = ${bucket} AND window_start = ${start}::timestamptz
                 FOR UPDATE) g
       WHERE w.tenant_id = ${tenantId}::uuid AND w.bucket = ${bucket} AND w.window_start = ${start}::timestamptz
      RETURNING g.n AS granted, w.reserved`.execute(this.database.db);
    const row = result.rows[0];
    return { granted: Number(row?.granted ?? 0), reserved: Number(row?.reserved ?? limit) };
  }

  /** Drops the rows of windows that ended before `before` (platform-level housekeeping of the limiter). */
  async deleteWindowsBefore(before: Date): Promise<number> {
    const result = await this.database.db.deleteFrom('rate_limit_window').where('window_start', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Every tenant's overrides, for the limiter's in-memory copy. */
  async overridesOf(tenantId: TenantId): Promise<TenantLimitOverride[]> {
    return (
      await this.database.db
        .selectFrom('tenant_rate_limit')
        .select(['tenant_id', 'route_class', 'per_minute', 'per_key_per_minute'])
        .where('tenant_id', '=', tenantId)
        .execute()
    ).map(toOverride);
  }

  async allOverrides(): Promise<TenantLimitOverride[]> {
    return (await this.database.db.selectFrom('tenant_rate_limit').select(['tenant_id', 'route_class', 'per_minute', 'per_key_per_minute']).execute()).map(
      toOverride,
    );
  }

  /**
   * Changes the given classes' overrides of one tenant in one transaction: a field left undefined keeps its
   * stored value (the upsert sets only the fields given, so two concurrent partial changes both hold), null
   * returns it to the default. `audit` runs in the transaction with the tenant's overrides before and after.
   * Null when the tenant does not exist (nothing written).
   */
  async setOverrides(
    tenantId: TenantId,
    changes: OverrideChange[],
    audit: (tx: Tx, before: TenantLimitOverride[], after: TenantLimitOverride[]) => Promise<void>,
  ): Promise<{ before: TenantLimitOverride[]; after: TenantLimitOverride[] } | null> {
    return this.database.transaction(async (tx) => {
      if ((await tx.selectFrom('tenant').select('id').where('id', '=', tenantId).executeTakeFirst()) === undefined) return null;
      const overridesOf = async (lock: boolean) => {
        const query = tx
          .selectFrom('tenant_rate_limit')
          .select(['tenant_id', 'route_class', 'per_minute', 'per_key_per_minute'])
          .where('tenant_id', '=', tenantId);
        return (await (lock ? query.forUpdate() : query).execute()).map(toOverride);
      };
      const before = await overridesOf(true);
      for (const change of changes) {
        const set = {
          ...(change.perMinute !== undefined ? { per_minute: change.perMinute } : {}),
          ...(change.perKeyPerMinute !== undefined ? { per_key_per_minute: change.perKeyPerMinute } : {}),
        };
        // EXCLUDED.updated_at is the insert's now(): no now() in DO UPDATE (Citus, docs/SCALING.md "Running on Citus").
        await tx
          .insertInto('tenant_rate_limit')
          .values({ tenant_id: tenantId, route_class: change.routeClass, per_minute: null, per_key_per_minute: null, ...set })
          .onConflict((c) => c.columns(['tenant_id', 'route_class']).doUpdateSet((eb) => ({ ...set, updated_at: eb.ref('excluded.updated_at') })))
          .execute();
      }
      const after = await overridesOf(false);
      await audit(tx, before, after);
      return { before, after };
    });
  }
}

/** A change of one class's overrides: undefined keeps the stored value, null returns to the default. */
export interface OverrideChange {
  routeClass: RateClass;
  perMinute?: number | null;
  perKeyPerMinute?: number | null;
}

function toOverride(r: { tenant_id: string; route_class: string; per_minute: number | null; per_key_per_minute: number | null }): TenantLimitOverride {
  return { tenantId: r.tenant_id, routeClass: r.route_class as RateClass, perMinute: r.per_minute, perKeyPerMinute: r.per_key_per_minute };
}
