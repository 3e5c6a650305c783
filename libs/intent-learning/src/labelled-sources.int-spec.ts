import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { asTenantId, type TenantId } from '@arbiter/common';
import { Database } from '@arbiter/database';
import { connectDataSource, createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { LabelledSourcesRepository } from './labelled-sources.repository.js';

/** The read model of `bad_case_label` (docs/CONVENTIONS.md): a review without an intent (migration 0170) is no label. */
describe('LabelledSourcesRepository.badCases on a real database', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: LabelledSourcesRepository;
  let tenant: TenantId;
  let other: TenantId;

  const session = async (t: TenantId, query: string): Promise<string> => {
    const conv = await db.pool.query<{ id: string }>(`INSERT INTO conversation (tenant_id) VALUES ($1) RETURNING id`, [t]);
    const s = await db.pool.query<{ id: string }>(
      `INSERT INTO diagnosis_session (tenant_id, conversation_id, query, status) VALUES ($1, $2, $3, 'SUCCESS') RETURNING id`,
      [t, conv.rows[0].id, query],
    );
    return s.rows[0].id;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await connectDataSource(db.url, [], { max: 2 });
    repo = new LabelledSourcesRepository(new Database(ds));
    const t = await db.pool.query<{ id: string }>(`INSERT INTO tenant (name) VALUES ('ls-a'), ('ls-b') RETURNING id`);
    tenant = asTenantId(t.rows[0].id);
    other = asTenantId(t.rows[1].id);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.close();
  });

  it('reads the labelled bad cases of the tenant and skips records without an intent', async () => {
    const labelled = await session(tenant, '散热风扇坏了');
    const documentOnly = await session(tenant, '示教器黑屏');
    const noted = await session(tenant, '急停复位');
    await db.pool.query(`INSERT INTO bad_case_label (tenant_id, session_id, intent) VALUES ($1, $2, 'cooling')`, [tenant, labelled]);
    await db.pool.query(`INSERT INTO bad_case_label (tenant_id, session_id, document_id) VALUES ($1, $2, gen_random_uuid())`, [tenant, documentOnly]);
    await db.pool.query(`INSERT INTO bad_case_label (tenant_id, session_id, note, status, resolved_at) VALUES ($1, $2, 'n', 'RESOLVED', now())`, [
      tenant,
      noted,
    ]);
    expect(await repo.badCases(tenant, 10)).toEqual([{ text: '散热风扇坏了', intent: 'cooling' }]);
    expect(await repo.badCases(other, 10)).toEqual([]);
  });
});
