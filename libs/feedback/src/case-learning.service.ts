import { Injectable } from '@nestjs/common';
import { invalidRequest, MetricsService, type TenantId } from '@arbiter/common';
import { INTENT_LIMITS, IntentRulesService, type IntentRuleView } from '@arbiter/intent';
import { AuditLog } from '@arbiter/tenancy';
import type { AcceptExampleResultDto, CaseLibrarySettingsDto } from './dto/feedback.dto.js';
import { CaseLibraryAnswers } from './case-library-answers.js';
import { CaseLibraryRepository, type BadCaseLabelRow, type CaseLibrarySettingsRow } from './case-library.repository.js';
import { caseThresholdProblems, DEFAULT_CASE_ANSWER_THRESHOLD } from './case-matcher.js';
import { FeedbackErrorCode, FeedbackException } from './feedback.exception.js';

function toSettingsDto(row: CaseLibrarySettingsRow): CaseLibrarySettingsDto {
  return { threshold: row.threshold ?? DEFAULT_CASE_ANSWER_THRESHOLD, isDefault: row.threshold === null, version: row.version };
}

/** Rules page size when looking for an intent's rule (a tenant has few rules per intent). */
const RULES_PER_INTENT = 100;

/**
 * Feedback that teaches (docs/learning.md "Feedback that teaches"): the case library's answer threshold,
 * case retraction, and accepting a bad case's question as a semantic example of its correct intent.
 */
@Injectable()
export class CaseLearningService {
  private readonly caseEvents;

  constructor(
    private readonly repository: CaseLibraryRepository,
    private readonly answers: CaseLibraryAnswers,
    private readonly rules: IntentRulesService,
    metrics: MetricsService,
    private readonly audit: AuditLog,
  ) {
    // The same counter as FeedbackService's (get-or-create on one registry).
    this.caseEvents = metrics.counter('arbiter_case_library_events_total', 'Case library changes (created|restored|retracted|manual_created|edited)', [
      'event',
    ]);
  }

  async settings(tenantId: TenantId): Promise<CaseLibrarySettingsDto> {
    return toSettingsDto(await this.repository.settings(tenantId));
  }

  /** Sets the answer threshold ((0, 1]; null = the default); this replica's index follows at once, others within the poll. */
  async setThreshold(tenantId: TenantId, threshold: number | null): Promise<CaseLibrarySettingsDto> {
    if (threshold !== null) {
      const problems = caseThresholdProblems(threshold);
      if (problems.length) throw invalidRequest([{ field: 'threshold', errors: problems }]);
    }
    const before = await this.repository.settings(tenantId);
    await this.repository.setThreshold(tenantId, threshold, (tx) =>
      this.audit.record(tx, tenantId, {
        action: 'update',
        resourceType: 'case_library_settings',
        label: 'case library settings',
        summary: { before: { threshold: before.threshold }, after: { threshold } },
      }),
    );
    this.answers.invalidate(tenantId);
    return toSettingsDto(await this.repository.settings(tenantId));
  }

  /** Retracts an active case: it is neither listed nor answers again (kept in the table). */
  async retractCase(tenantId: TenantId, id: string): Promise<void> {
    const retracted = await this.repository.retractCase(tenantId, id, (tx, row) =>
      this.audit.record(tx, tenantId, {
        action: 'delete',
        resourceType: 'case',
        resourceId: row.id,
        label: row.query,
        summary: { sourceType: row.sourceType },
      }),
    );
    if (!retracted) throw new FeedbackException(FeedbackErrorCode.CaseNotFound, id);
    this.answers.invalidate(tenantId);
    this.caseEvents.inc({ event: 'retracted' });
  }

  /** Labels of the given bad cases (for the review queue). */
  labels(tenantId: TenantId, sessionIds: readonly string[]): Promise<Map<string, BadCaseLabelRow>> {
    return this.repository.labels(tenantId, sessionIds);
  }

  /**
   * Labels a bad case with its correct intent and appends its question to the semantic examples of that
   * intent's rule (the enabled one of highest priority, then the oldest) through the intent lib's
   * `IntentRulesService.update` — which validates, embeds and invalidates the router cache; the router
   * recompiles on its next request and its classifier retrains on a worker thread. One call.
   */
  async acceptExample(tenantId: TenantId, sessionId: string, intentName: string): Promise<AcceptExampleResultDto> {
    const intent = intentName.trim();
    const badCase = await this.repository.badCaseQuestion(tenantId, sessionId);
    if (badCase === null) throw new FeedbackException(FeedbackErrorCode.BadCaseNotFound, sessionId);
    const example = badCase.query.trim();
    if (example.length > INTENT_LIMITS.exampleLength) {
      throw new FeedbackException(
        FeedbackErrorCode.ExampleNotAcceptable,
        `the question has ${example.length} characters; an example has at most ${INTENT_LIMITS.exampleLength}`,
      );
    }
    const rule = await this.ruleFor(tenantId, intent);
    if (rule === null) throw new FeedbackException(FeedbackErrorCode.NoRuleForIntent, intent);
    if (rule.semanticExamples.some((e) => e.trim() === example)) {
      throw new FeedbackException(FeedbackErrorCode.AlreadyAnExample, `rule ${rule.id} of intent ${intent}`);
    }
    if (rule.semanticExamples.length >= INTENT_LIMITS.semanticExamples) {
      throw new FeedbackException(FeedbackErrorCode.ExampleNotAcceptable, `rule ${rule.id} has ${INTENT_LIMITS.semanticExamples} examples already`);
    }
    const updated = await this.rules.update(tenantId, rule.id, { semanticExamples: [...rule.semanticExamples, example] });
    // The rule's new example is recorded by the intent lib (an `intent_rule` update); the bad case's label here.
    const label = await this.repository.upsertLabel(tenantId, sessionId, { intent, ruleId: rule.id, example }, (tx) =>
      this.audit.record(tx, tenantId, {
        action: 'accept_example',
        resourceType: 'bad_case_label',
        resourceId: sessionId,
        label: example,
        summary: { intent, ruleId: rule.id, semanticExampleCount: updated.semanticExamples.length },
      }),
    );
    return {
      sessionId,
      intent,
      ruleId: rule.id,
      example,
      semanticExampleCount: updated.semanticExamples.length,
      label: { intent, ruleId: label.ruleId, example: label.example, labelledAt: label.updatedAt.toISOString() },
    };
  }

  private async ruleFor(tenantId: TenantId, intent: string): Promise<IntentRuleView | null> {
    const page = await this.rules.list(tenantId, { intent, limit: RULES_PER_INTENT });
    let best: IntentRuleView | null = null;
    for (const r of page.items) {
      if (!r.enabled || r.intent !== intent) continue;
      if (best === null || r.priority > best.priority || (r.priority === best.priority && r.createdAt < best.createdAt)) best = r;
    }
    return best;
  }
}
