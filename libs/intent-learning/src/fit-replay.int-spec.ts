import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTenantId, pageRequest, type TenantId } from '@arbiter/common';
import { newMediumTest, type MediumTest } from '@arbiter/testing';
import { DecisionLogRepository, type DecisionLogRow } from './decision-log.repository.js';
import { INTENT_LEARNING_ENTITIES } from './entities/index.js';
import { IntentFitRepository } from './intent-fit.repository.js';
import { IntentReplayRepository } from './intent-replay.repository.js';
import { LabelledSetRepository } from './labelled-set.repository.js';

describe('fit and replay repositories on a real database', () => {
  let medium: MediumTest;
  let decisions: DecisionLogRepository;
  let sets: LabelledSetRepository;
  let fits: IntentFitRepository;
  let replays: IntentReplayRepository;
  const A = asTenantId(randomUUID());
  const B = asTenantId(randomUUID());
  const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);

  const row = (tenantId: TenantId, ms: number, message: string): DecisionLogRow => ({
    tenantId,
    id: randomUUID(),
    createdAt: new Date(t0 + ms),
    source: 'route',
    sessionId: null,
    message,
    configVersion: '1',
    rulesVersion: '1',
    intent: 'reset',
    reason: 'rule_high_confidence',
    needClarify: false,
    confidence: 0.9,
    candidates: [],
    trace: {},
    latencyMs: 1,
  });

  beforeAll(async () => {
    medium = await newMediumTest({ entities: INTENT_LEARNING_ENTITIES, max: 10 });
    const database = medium.database;
    decisions = new DecisionLogRepository(database);
    sets = new LabelledSetRepository(database);
    fits = new IntentFitRepository(database);
    replays = new IntentReplayRepository(database);
  });
  afterAll(async () => {
    await medium?.close();
  });

  it('reads a replay scope oldest first across batches (same-millisecond ties by id), with review labels, per tenant', async () => {
    const a = [row(A, 0, 'one'), row(A, 1, 'two'), row(A, 1, 'three'), row(A, 2, 'four'), row(A, 10_000, 'outside')];
    await decisions.insertBatch([...a, row(B, 1, 'other tenant')]);
    await sets.labelDecision(A, a[1]!.id, null);
    const scope = { from: new Date(t0), to: new Date(t0 + 2) };
    expect(await replays.countDecisions(A, scope)).toBe(4);
    expect(await replays.countDecisions(B, scope)).toBe(1);
    const seen: { message: string; labelled: boolean; label: string | null }[] = [];
    let after: { createdAt: string; id: string } | null = null;
    for (;;) {
      const batch = await replays.decisions(A, scope, after, 3);
      if (batch.length === 0) break;
      seen.push(...batch.map((d) => ({ message: d.message, labelled: d.labelled, label: d.label })));
      after = { createdAt: batch.at(-1)!.createdAt, id: batch.at(-1)!.id };
    }
    expect(seen.map((s) => s.message).sort()).toEqual(['four', 'one', 'three', 'two']);
    expect(seen[0]!.message).toBe('one');
    expect(seen[3]!.message).toBe('four');
    expect(seen.find((s) => s.message === 'two')).toEqual({ message: 'two', labelled: true, label: null });
    expect(seen.filter((s) => s.labelled)).toHaveLength(1);
    // ids of another tenant's decisions are not in this tenant's scope
    expect(await replays.countDecisions(B, { decisionIds: a.map((d) => d.id) })).toBe(0);
    expect(await replays.countDecisions(A, { decisionIds: [a[0]!.id, a[4]!.id] })).toBe(2);
  });

  it('records replays and fits per tenant through their lifecycle', async () => {
    const replayId = await replays.create(A, { decisionIds: [randomUUID()] }, { config: { minTriggerThreshold: 0.5 } }, 1, null);
    await replays.attachJob(A, replayId, null);
    await replays.markRunning(A, replayId);
    expect(await replays.get(A, replayId)).toMatchObject({ status: 'running', decisions: 1, candidate: { config: { minTriggerThreshold: 0.5 } } });
    await replays.succeed(A, replayId, { total: 1 });
    expect(await replays.get(A, replayId)).toMatchObject({ status: 'succeeded', report: { total: 1 } });
    expect(await replays.get(B, replayId)).toBeNull();
    expect((await replays.list(B, pageRequest({}))).items).toEqual([]);

    const set = await sets.createVersion(A, 'train', [
      { line: 1, text: 'reset it', intent: 'reset' },
      { line: 2, text: 'weather?', intent: null },
    ]);
    expect(await fits.examples(A, set.id)).toEqual([
      { text: 'reset it', intent: 'reset' },
      { text: 'weather?', intent: null },
    ]);
    expect(await fits.examples(B, set.id)).toEqual([]);
    const fitId = await fits.create(A, set, { minOutOfScopeRecall: 0.5, maxClarifyRate: 0.1 });
    await fits.markRunning(A, fitId);
    await fits.succeed(A, fitId, '7', { feasible: true });
    expect(await fits.get(A, fitId)).toMatchObject({
      status: 'succeeded',
      configVersion: '7',
      result: { feasible: true },
      labelledSet: { name: 'train', version: 1 },
    });
    const failedId = await fits.create(A, set, {});
    await fits.fail(A, failedId, 'boom');
    expect(await fits.get(A, failedId)).toMatchObject({ status: 'failed', error: 'boom' });
    expect(await fits.get(B, fitId)).toBeNull();
    expect((await fits.list(A, pageRequest({ limit: 1 }))).nextCursor).not.toBeNull();
  });
});
