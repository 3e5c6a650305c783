import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Inject, Injectable } from '@nestjs/common';
import pg from 'pg';
import { sql } from 'kysely';
import type { TenantId } from '@arbiter/common';
import { Database } from '@arbiter/database';
import { newMediumTest, type MediumTest } from './medium.js';
import { testDbKind } from './database/test-db-env.js';

@Injectable()
class TenantNames {
  constructor(private readonly database: Database) {}
  async of(tenantId: TenantId): Promise<string | null> {
    const { rows } = await sql<{ name: string }>`SELECT name FROM tenant WHERE id = ${tenantId}`.execute(this.database.db);
    return rows[0]?.name ?? null;
  }
}

const GREETING = Symbol('greeting');

@Injectable()
class Greeter {
  constructor(
    private readonly names: TenantNames,
    @Inject(GREETING) private readonly greeting: string,
  ) {}
  async greet(tenantId: TenantId): Promise<string> {
    return `${this.greeting}, ${(await this.names.of(tenantId)) ?? 'nobody'}`;
  }
}

describe(`the medium test tier (${testDbKind()})`, () => {
  let medium: MediumTest;
  beforeAll(async () => {
    medium = await newMediumTest();
  }, 120_000);
  afterAll(() => medium?.close());

  it('runs services with their real collaborators on a migrated database of their own, without HTTP', async () => {
    const [acme, globex] = (await medium.tenants('acme', 'globex')) as [TenantId, TenantId];
    expect(acme).not.toBe(globex);
    const greeter = await medium.service(Greeter, [TenantNames, { provide: GREETING, useValue: 'hello' }]);
    expect(await greeter.greet(acme)).toBe('hello, acme');
    expect(await greeter.greet(globex)).toBe('hello, globex');
    const { rows } = await medium.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM schema_migrations`);
    expect(rows[0]!.n).toBeGreaterThan(10);
  });

  it('removes its database on close: nothing answers at its address any more', async () => {
    const other = await newMediumTest();
    await other.tenants('short-lived');
    const client = new pg.Client({ connectionString: other.db.url, connectionTimeoutMillis: 5_000 });
    await client.connect();
    await client.end();
    await other.close();
    const after = new pg.Client({ connectionString: other.db.url, connectionTimeoutMillis: 5_000 });
    after.on('error', () => undefined);
    await expect(after.connect()).rejects.toThrow();
  }, 120_000);
});
