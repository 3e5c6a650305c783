import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { LabelledSourcesRepository } from './labelled-sources.repository.js';

/** The read model of `bad_case_label` (docs/CONVENTIONS.md): a review without an intent (migration 0170) is no label. */
describe('LabelledSourcesRepository.badCases on a real database', () => {
  let medium: MediumTest;
  let db: TestDatabase;
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
    medium = await newMediumTest({ max: 2 });
    db = medium.db;
    repo = new LabelledSourcesRepository(medium.database);
    [tenant, other] = (await medium.tenants('ls-a', 'ls-b')) as [TenantId, TenantId];
  });
  afterAll(async () => {
    await medium?.close();
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
