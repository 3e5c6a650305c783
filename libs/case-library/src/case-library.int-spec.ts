import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { asTenantId, type TenantId } from '@arbiter/common';
import { detectSchemaDrift } from '@arbiter/database';
import { ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity } from '@arbiter/sessions';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { CaseLibraryRepository } from './case-library.repository.js';
import { CaseLibrarySettingsEntity, CaseLibraryVersionEntity } from './entities/case-library-settings.entity.js';
import { CaseLibraryEntity } from './entities/case-library.entity.js';

describe('CaseLibraryRepository on a real database (migration 0150)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let ds: DataSource;
  let repo: CaseLibraryRepository;
  let tenant: TenantId;
  let other: TenantId;

  const version = async (t: TenantId): Promise<string> => (await repo.versions([t])).get(t) ?? '0';
  const manual = async (t: TenantId, query: string, answer: string): Promise<string> =>
    (
      await db.pool.query<{ id: string }>(`INSERT INTO case_library (tenant_id, query, answer, source_type) VALUES ($1, $2, $3, 'MANUAL') RETURNING id`, [
        t,
        query,
        answer,
      ])
    ).rows[0].id;

  beforeAll(async () => {
    medium = await newMediumTest({
      entities: [ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity, CaseLibraryEntity, CaseLibrarySettingsEntity, CaseLibraryVersionEntity],
      max: 4,
    });
    db = medium.db;
    ds = medium.dataSource;
    repo = await medium.service(CaseLibraryRepository);
    [tenant, other] = await medium.tenants('cl-a', 'cl-b');
  });
  afterAll(() => medium?.close());

  it('migration 0150 and the entities match (no drift)', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });

  it('the version moves on every change that can change an answer, and only for its tenant', async () => {
    expect(await version(tenant)).toBe('0');
    const id = await manual(tenant, '示教器无法开机', '检查电源');
    expect(await version(tenant)).toBe('1');
    expect(await version(other)).toBe('0');

    // Category and error code do not change an answer.
    expect(await repo.editCase(tenant, id, { faultCategory: 'ELECTRICAL', errorCode: 'P01' })).toMatchObject({ faultCategory: 'ELECTRICAL', errorCode: 'P01' });
    expect(await version(tenant)).toBe('1');
    await repo.editCase(tenant, id, { answer: '检查电源和保险丝' });
    expect(await version(tenant)).toBe('2');
    await repo.editCase(tenant, id, { query: '示教器开不了机' });
    expect(await version(tenant)).toBe('3');

    // Another tenant cannot edit or retract it; nothing moves.
    expect(await repo.editCase(other, id, { answer: 'x' })).toBeNull();
    expect(await repo.retractCase(other, id)).toBe(false);
    expect(await version(tenant)).toBe('3');

    expect(await repo.retractCase(tenant, id)).toBe(true);
    expect(await repo.retractCase(tenant, id)).toBe(false);
    expect(await repo.editCase(tenant, id, { answer: 'x' })).toBeNull();
    expect(await version(tenant)).toBe('4');
  });

  it('indexSnapshot: version, threshold and the newest active cases of the tenant only, in one statement', async () => {
    const a = await manual(tenant, 'q-a', 'a-a');
    const b = await manual(tenant, 'q-b', 'a-b');
    const gone = await manual(tenant, 'q-gone', 'a-gone');
    await repo.retractCase(tenant, gone);
    await db.pool.query(`UPDATE case_library SET updated_at = now() + interval '1 hour' WHERE id = $1`, [a]);
    const snap = await repo.indexSnapshot(tenant, 10);
    expect(snap.version).toBe(await version(tenant));
    expect(snap.threshold).toBeNull();
    expect(snap.cases.map((c) => c.id)).toEqual([a, b]);
    expect(snap.cases[0]).toEqual({ id: a, query: 'q-a', answer: 'a-a', sourceType: 'MANUAL', updatedAt: expect.any(Number) });
    expect((await repo.indexSnapshot(tenant, 1)).cases.map((c) => c.id)).toEqual([a]);
    const empty = await repo.indexSnapshot(asTenantId('00000000-0000-4000-8000-000000000000'), 10);
    expect(empty).toEqual({ version: '0', threshold: null, cases: [] });
  });

  it('threshold: set, bumps the version, back to the default with null; the database refuses (0, 1] violations', async () => {
    const v = Number(await version(tenant));
    await repo.setThreshold(tenant, 0.9);
    expect(await repo.settings(tenant)).toMatchObject({ threshold: 0.9, version: String(v + 1), updatedAt: expect.any(Date) });
    expect((await repo.indexSnapshot(tenant, 1)).threshold).toBe(0.9);
    await repo.setThreshold(tenant, 0.8);
    expect(await repo.settings(tenant)).toMatchObject({ threshold: 0.8, version: String(v + 2) });
    await repo.setThreshold(tenant, null);
    expect(await repo.settings(tenant)).toEqual({ threshold: null, version: String(v + 3), updatedAt: null });
    await repo.setThreshold(tenant, null); // nothing to delete: no change
    expect(await version(tenant)).toBe(String(v + 3));
    await expect(repo.setThreshold(tenant, 0)).rejects.toThrow(/chk_case_library_settings_threshold/);
    await expect(repo.setThreshold(tenant, 1.5)).rejects.toThrow(/chk_case_library_settings_threshold/);
    expect(await version(tenant)).toBe(String(v + 3));
    expect(await repo.settings(asTenantId('00000000-0000-4000-8000-000000000000'))).toEqual({ threshold: null, version: '0', updatedAt: null });
  });

  it('concurrent writers of one tenant spread over slots, and the version counts every change', async () => {
    const [t] = await medium.tenants('cl-c');
    await Promise.all(Array.from({ length: 24 }, (_, i) => manual(t, `q${i}`, `a${i}`)));
    expect(await version(t)).toBe('24');
    const slots = await db.pool.query<{ slot: number }>(`SELECT slot FROM case_library_version WHERE tenant_id = $1`, [t]);
    expect(slots.rows.every((r) => r.slot >= 0 && r.slot < 16)).toBe(true);
  });
});
