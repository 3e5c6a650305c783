import type { Provider, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource, DataSourceOptions } from 'typeorm';
import { asTenantId, type TenantId } from '@arbiter/common';
import { Database } from '@arbiter/database';
import { connectDataSource, createTestDatabase, type TestDatabase } from './database/test-database.js';

/**
 * The medium test tier (docs/CONVENTIONS.md "Test tiers"): repositories and services on a real, migrated
 * database of their own (a copy of the run's template, PGlite or PostgreSQL by `TEST_DB`), without HTTP.
 * One per test file: `beforeAll(async () => (medium = await newMediumTest({ entities })))`,
 * `afterAll(() => medium.close())`.
 */
export interface MediumTest {
  /** The database itself: its url, kind and a plain pg pool for seeding and assertions. */
  readonly db: TestDatabase;
  /** The typed data layer repositories take (over a TypeORM connection with `entities`). */
  readonly database: Database;
  readonly dataSource: DataSource;
  /** Creates one tenant per name (names must differ case-insensitively) and returns their ids in order. */
  tenants(...names: string[]): Promise<TenantId[]>;
  /**
   * Builds `target` the way the app does, with Nest's injector: `providers` are its real collaborators
   * (repositories, services, or `{ provide, useValue }` for a config); `Database` and the `DataSource` are
   * this test's. The module is closed with the test.
   */
  service<T>(target: Type<T>, providers?: Provider[]): Promise<T>;
  close(): Promise<void>;
}

export interface MediumTestOptions {
  /** TypeORM entities the code under test reads through the `DataSource` (Kysely needs none). */
  entities?: NonNullable<DataSourceOptions['entities']>;
  /** Connections of the pool (default 2; concurrency tests want more). */
  max?: number;
}

export async function newMediumTest(options: MediumTestOptions = {}): Promise<MediumTest> {
  const db = await createTestDatabase();
  const modules: TestingModule[] = [];
  let dataSource: DataSource;
  try {
    dataSource = await connectDataSource(db.url, options.entities ?? [], { max: options.max ?? 2 });
  } catch (error) {
    await db.close();
    throw error;
  }
  const database = new Database(dataSource);
  return {
    db,
    database,
    dataSource,
    async tenants(...names) {
      const ids: TenantId[] = [];
      for (const name of names) {
        const { rows } = await db.pool.query<{ id: string }>(`INSERT INTO tenant (name) VALUES ($1) RETURNING id`, [name]);
        ids.push(asTenantId(rows[0]!.id));
      }
      return ids;
    },
    async service<T>(target: Type<T>, providers: Provider[] = []) {
      const module = await Test.createTestingModule({
        providers: [target, ...providers, { provide: Database, useValue: database }, { provide: getDataSourceToken(), useValue: dataSource }],
      }).compile();
      modules.push(module);
      return module.get(target);
    },
    async close() {
      for (const module of modules.splice(0)) await module.close();
      if (dataSource.isInitialized) await dataSource.destroy();
      await db.close();
    },
  };
}
