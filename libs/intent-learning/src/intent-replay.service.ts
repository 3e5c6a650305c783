import { Injectable } from '@nestjs/common';
import { invalidRequest, pageRequest, type FieldError, type Page, type PageQueryDto, type TenantId } from '@arbiter/common';
import type { Db } from '@arbiter/database';
import { IntentSandbox } from '@arbiter/intent';
import { JobsService } from '@arbiter/jobs';
import { AuditLog } from '@arbiter/tenancy';
import { INTENT_REPLAY_JOB } from './intent-replay.job.js';
import { IntentReplayRepository, type ReplayScope, type StoredIntentReplay } from './intent-replay.repository.js';
import { IntentLearningErrorCode, IntentLearningException } from './intent-learning.exception.js';
import { emptyTally, replayReport } from './replay-report.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const REPLAY_MAX_DECISION_IDS = 10_000;

export interface ReplayRequest {
  scope: ReplayScope;
  candidate: { config?: unknown; rules?: unknown };
}

function parseTime(value: unknown, field: string, errors: FieldError[]): Date | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    errors.push({ field, errors: [`${field} must be an ISO 8601 date-time`] });
    return undefined;
  }
  return new Date(value);
}

/** The body of `POST /admin/intent/replay`, checked by hand so every problem is named in one 400. */
export function parseReplayRequest(body: unknown, now = new Date()): ReplayRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest([{ field: 'body', errors: ['body must be an object {from, to?} or {decisionIds}, with config and/or rules'] }]);
  }
  const errors: FieldError[] = [];
  const { from, to, decisionIds, config, rules, ...rest } = body as Record<string, unknown>;
  for (const key of Object.keys(rest)) errors.push({ field: key.slice(0, 100), errors: [`property ${key.slice(0, 100)} should not exist`] });
  let scope: ReplayScope | null = null;
  if (decisionIds !== undefined) {
    if (from !== undefined || to !== undefined) errors.push({ field: 'decisionIds', errors: ['give either a window (from, to) or decisionIds, not both'] });
    if (!Array.isArray(decisionIds) || decisionIds.length === 0 || decisionIds.length > REPLAY_MAX_DECISION_IDS) {
      errors.push({ field: 'decisionIds', errors: [`decisionIds must be an array of 1-${REPLAY_MAX_DECISION_IDS} decision ids`] });
    } else {
      const bad = decisionIds.findIndex((id) => typeof id !== 'string' || !UUID.test(id));
      if (bad >= 0) errors.push({ field: `decisionIds[${bad}]`, errors: ['must be a UUID'] });
      else scope = { decisionIds: [...new Set(decisionIds as string[])] };
    }
  } else {
    const fromTime = parseTime(from, 'from', errors);
    const toTime = parseTime(to, 'to', errors) ?? now;
    if (from === undefined) errors.push({ field: 'from', errors: ['from is required (or give decisionIds)'] });
    else if (fromTime !== undefined && fromTime > toTime) errors.push({ field: 'from', errors: ['from must not be after to'] });
    if (fromTime !== undefined) scope = { from: fromTime, to: toTime };
  }
  if (errors.length > 0 || scope === null) throw invalidRequest(errors);
  return { scope, candidate: { ...(config !== undefined ? { config } : {}), ...(rules !== undefined ? { rules } : {}) } };
}

/** Replays of logged decisions under a candidate (docs/learning.md "Replay"): requested here, run by a resumable job. */
@Injectable()
export class IntentReplayService {
  constructor(
    private readonly replays: IntentReplayRepository,
    private readonly sandbox: IntentSandbox,
    private readonly jobs: JobsService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Checks the body and the candidate (400 naming `config.<key>` / `rules[i].<field>`) before anything is
   * written. An empty scope is answered at once (`status: succeeded`, zero counts, `queued: false`).
   */
  async request(tenantId: TenantId, { scope, candidate }: ReplayRequest): Promise<{ replay: StoredIntentReplay; queued: boolean }> {
    await this.sandbox.check(tenantId, candidate);
    const decisions = await this.replays.countDecisions(tenantId, scope);
    const record = (tx: Db, replayId: string) =>
      this.audit.record(tx, tenantId, {
        action: 'request',
        resourceType: 'intent_replay',
        resourceId: replayId,
        label: 'decisionIds' in scope ? `${scope.decisionIds.length} decisions` : `${scope.from.toISOString()} – ${scope.to.toISOString()}`,
        summary: { decisions, candidate: Object.keys(candidate) },
      });
    if (decisions === 0) {
      const id = await this.replays.create(tenantId, scope, candidate, 0, { ...replayReport(emptyTally()) }, record);
      return { replay: (await this.replays.get(tenantId, id))!, queued: false };
    }
    const id = await this.replays.create(tenantId, scope, candidate, decisions, null, record);
    const run = await this.jobs.enqueue(tenantId, INTENT_REPLAY_JOB, { replayId: id });
    await this.replays.attachJob(tenantId, id, run?.id ?? null);
    return { replay: (await this.replays.get(tenantId, id))!, queued: true };
  }

  async get(tenantId: TenantId, id: string): Promise<StoredIntentReplay> {
    const replay = await this.replays.get(tenantId, id);
    if (replay === null) throw new IntentLearningException(IntentLearningErrorCode.REPLAY_NOT_FOUND);
    return replay;
  }

  list(tenantId: TenantId, query: PageQueryDto): Promise<Page<StoredIntentReplay>> {
    return this.replays.list(tenantId, pageRequest(query));
  }
}
