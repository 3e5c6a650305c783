import { Injectable } from '@nestjs/common';
import { invalidRequest, pageRequest, type Page, type TenantId } from '@arbiter/common';
import { IntentService } from '@arbiter/intent';
import { AuditLog } from '@arbiter/tenancy';
import { DecisionLogRepository, type StoredDecision } from './decision-log.repository.js';
import { parseInstant, type ListDecisionsQueryDto } from './dto/decision.dto.js';
import { unknownIntents } from './labelled-data.js';
import { LabelledSetRepository, type StoredLabelledExample } from './labelled-set.repository.js';
import { IntentLearningErrorCode, IntentLearningException, unknownIntentsError } from './intent-learning.exception.js';

/** The decision log's reads, the operators' labels on logged decisions, and the retention setting. */
@Injectable()
export class DecisionLogService {
  constructor(
    private readonly decisions: DecisionLogRepository,
    private readonly sets: LabelledSetRepository,
    private readonly intents: IntentService,
    private readonly audit: AuditLog,
  ) {}

  async list(tenantId: TenantId, query: ListDecisionsQueryDto): Promise<Page<StoredDecision>> {
    const from = query.from !== undefined ? parseInstant(query.from) : null;
    const to = query.to !== undefined ? parseInstant(query.to) : null;
    if (from !== null && to !== null && from > to) throw invalidRequest([{ field: 'from', errors: ['from must not be after to'] }]);
    return this.decisions.list(
      tenantId,
      {
        ...(from !== null ? { from } : {}),
        ...(to !== null ? { to } : {}),
        ...(query.intent !== undefined ? { intent: query.intent } : {}),
        ...(query.reason !== undefined ? { reason: query.reason } : {}),
        ...(query.needClarify !== undefined ? { needClarify: query.needClarify === 'true' } : {}),
        ...(query.source !== undefined ? { source: query.source } : {}),
      },
      pageRequest(query),
    );
  }

  async get(tenantId: TenantId, id: string): Promise<StoredDecision> {
    const decision = await this.decisions.get(tenantId, id);
    if (decision === null) throw new IntentLearningException(IntentLearningErrorCode.DECISION_NOT_FOUND);
    return decision;
  }

  /**
   * Puts the correct intent (null: out of scope) on a logged decision; the label joins the tenant's review
   * set (relabelling replaces it). An intent no rule of the tenant names → 400 listing it; nothing written.
   */
  async label(tenantId: TenantId, id: string, intent: string | null): Promise<StoredLabelledExample> {
    if (intent !== null) {
      const unknown = unknownIntents([{ intent }], await this.intents.knownIntents(tenantId));
      if (unknown.length) throw unknownIntentsError(unknown, 'intent');
    }
    const example = await this.sets.labelDecision(tenantId, id, intent, (em, labelled) =>
      this.audit.record(em, tenantId, {
        action: 'label',
        resourceType: 'decision_label',
        resourceId: id,
        label: intent ?? 'out of scope',
        summary: { intent, exampleId: labelled.id },
      }),
    );
    if (example === null) throw new IntentLearningException(IntentLearningErrorCode.DECISION_NOT_FOUND);
    return example;
  }

  async retention(tenantId: TenantId): Promise<{ retentionDays: number }> {
    return { retentionDays: await this.decisions.retentionDays(tenantId) };
  }

  async setRetention(tenantId: TenantId, retentionDays: number): Promise<{ retentionDays: number }> {
    const before = await this.decisions.retentionDays(tenantId);
    await this.decisions.setRetentionDays(tenantId, retentionDays, (em) =>
      this.audit.record(em, tenantId, {
        action: 'update',
        resourceType: 'decision_log_settings',
        label: 'decision log retention',
        summary: { before: { retentionDays: before }, after: { retentionDays } },
      }),
    );
    return { retentionDays };
  }
}
