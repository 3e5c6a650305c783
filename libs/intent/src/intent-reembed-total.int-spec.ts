import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, type TenantId } from '@arbiter/common';
import { newMediumTest, testDbKind, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { walkBatches } from '../../../test/support/batch-walk.js';
import { INTENT_ENTITIES } from './entities/index.js';
import { IntentRepository } from './intent.repository.js';

const T1 = asTenantId('00000000-0000-4000-8000-0000000000d1');
const T2 = asTenantId('00000000-0000-4000-8000-0000000000d2');
/** Ids in a known order; odd numbers are T1's rules, even ones T2's, so a cursor steps over the other tenant's ids. */
const id = (n: number) => `20000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NEW = 'total-test-new';
const OLD = 'total-test-old';
const examples = (n: number) => Array.from({ length: n }, (_, i) => `example ${i}`);

describe('intent.reembed total agrees with its batch query (integration)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let repo: IntentRepository;

  /** A rule with `exampleCount` examples and embeddings of `count` examples in the given spaces. */
  const seedRule = async (tenantId: TenantId, n: number, exampleCount: number, embedded: Record<string, number> = {}) => {
    await db.pool.query('INSERT INTO intent_rule (id, tenant_id, intent, semantic_examples) VALUES ($1, $2, $3, $4::jsonb)', [
      id(n),
      tenantId,
      `intent-${n}`,
      JSON.stringify(examples(exampleCount)),
    ]);
    for (const [model, count] of Object.entries(embedded)) {
      await db.pool.query(
        `INSERT INTO intent_rule_embedding (tenant_id, rule_id, embedding_model, embedding_dim, example_count, vectors) VALUES ($1, $2, $3, 1, $4, '\\x00'::bytea)`,
        [tenantId, id(n), model, count],
      );
    }
  };

  beforeAll(async () => {
    medium = await newMediumTest({ entities: INTENT_ENTITIES, max: testDbKind() === 'pglite' ? 1 : 8 });
    db = medium.db;
    repo = await medium.service(IntentRepository);
    // T1: counted are 1 (never embedded), 7 (embedded for 2 of its 3 examples), 9 (only in the old space).
    await seedRule(T1, 1, 2);
    await seedRule(T1, 3, 2, { [NEW]: 2 });
    await seedRule(T1, 5, 0);
    await seedRule(T1, 7, 3, { [NEW]: 2 });
    await seedRule(T1, 9, 2, { [OLD]: 2 });
    await seedRule(T1, 11, 1, { [NEW]: 1, [OLD]: 1 });
    // T2: 2 and 6 lack NEW embeddings, 4 has them; none of them may count for T1.
    await seedRule(T2, 2, 2);
    await seedRule(T2, 4, 2, { [NEW]: 2 });
    await seedRule(T2, 6, 1, { [OLD]: 1 });
  }, 60_000);
  afterAll(() => medium?.close());

  it('countRulesWithStaleEmbeddings counts what rulesWithStaleEmbeddings returns, per tenant', async () => {
    expect(await repo.countRulesWithStaleEmbeddings(T1, NEW, null)).toBe(3);
    expect(await repo.countRulesWithStaleEmbeddings(T1, NEW, id(2))).toBe(2);
    expect(await repo.countRulesWithStaleEmbeddings(T1, NEW, id(9))).toBe(0);
    const walk = await walkBatches(
      (after) => repo.rulesWithStaleEmbeddings(T1, NEW, after, 2),
      (after) => repo.countRulesWithStaleEmbeddings(T1, NEW, after),
    );
    expect(walk.ids).toEqual([id(1), id(7), id(9)]);
    expect(walk.counts).toEqual(walk.remaining);
    expect(await repo.countRulesWithStaleEmbeddings(T2, NEW, null)).toBe(2);
    expect(await repo.countRulesWithStaleEmbeddings(T2, OLD, null)).toBe(2);
  });

  it('once the job has re-embedded what it walked, the total is zero and the other tenant keeps its own', async () => {
    for (const rule of await repo.rulesWithStaleEmbeddings(T1, NEW, null, 100)) {
      const written = await repo.replaceEmbeddingIfCurrent(T1, rule.id, rule.semanticExamples, {
        model: NEW,
        dim: 1,
        count: rule.semanticExamples.length,
        vectors: Buffer.alloc(4 * rule.semanticExamples.length),
      });
      expect(written).toBe(true);
    }
    expect(await repo.countRulesWithStaleEmbeddings(T1, NEW, null)).toBe(0);
    expect(await repo.rulesWithStaleEmbeddings(T1, NEW, null, 100)).toEqual([]);
    expect(await repo.countRulesWithStaleEmbeddings(T2, NEW, null)).toBe(2);
  });
});
