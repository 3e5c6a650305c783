import { Injectable } from '@nestjs/common';
import { invalidRequest, pageRequest, toPage, type Page, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { INTENT_LIMITS, IntentRulesService, IntentService, type IntentRuleView } from '@arbiter/intent';
import { KnowledgeService } from '@arbiter/retrieval';
import { addAttribution, attributeFailure, emptyLayerCounts, factsFromRow } from '@arbiter/sessions';
import { AuditLog } from '@arbiter/tenancy';
import type { AcceptExampleResultDto, BadCaseDto, BadCaseReportDto } from './dto/bad-case.dto.js';
import { isEmptyReview, labelOf, normalizeReview, reviewOf, reviewProblems, type BadCaseReviewPatch, type DocumentName } from './bad-case-review.js';
import { BadCaseRepository, type BadCaseLabelRow, type BadCaseRow } from './bad-case.repository.js';
import { FeedbackErrorCode, FeedbackException } from './feedback.exception.js';
import type { BadCaseReviewStatus } from './feedback.types.js';

function pick<T>(value: unknown, guard: (v: unknown) => v is T): T | null {
  return guard(value) ? value : null;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The route trace (docs/spec/intent-routing.md §4) reduced to what a reviewer scans. */
export function summarizeRouteTrace(trace: Record<string, unknown> | null): BadCaseDto['routeSummary'] {
  if (!trace || typeof trace !== 'object') return null;
  const fusion = (trace.fusion ?? {}) as Record<string, unknown>;
  const judge = (trace.llmJudge ?? {}) as Record<string, unknown>;
  return {
    finalIntent: pick(trace.finalIntent, isString),
    decisionReason: pick(trace.decisionReason, isString) ?? pick(fusion.decisionReason, isString),
    finalConfidence: pick(trace.finalConfidence, isNumber) ?? pick(fusion.finalConfidence, isNumber),
    llmJudgeTriggered: judge.triggered === true,
  };
}

function toBadCaseDto(row: BadCaseRow, label: BadCaseLabelRow | undefined, documents: ReadonlyMap<string, DocumentName>): BadCaseDto {
  return {
    sessionId: row.sessionId,
    conversationId: row.conversationId,
    channel: row.channel,
    query: row.query,
    answer: row.answer,
    comment: row.comment,
    intent: row.intent,
    selfEvaluation: row.selfEvaluation,
    routeSummary: summarizeRouteTrace(row.routeTrace),
    sessionCreatedAt: row.sessionCreatedAt.toISOString(),
    markedAt: row.markedAt.toISOString(),
    label: labelOf(label),
    review: reviewOf(label, documents),
    attribution: attributeFailure(factsFromRow(row)),
  };
}

/** Rules page size when looking for an intent's rule (a tenant has few rules per intent). */
const RULES_PER_INTENT = 100;

/**
 * Bad-case review (docs/learning.md "Review", "Failure attribution"): the queue of sessions marked not useful with
 * their failure attribution, the report per failure layer, an operator's review, and accepting a bad case's question
 * as a semantic example of its correct intent.
 */
@Injectable()
export class BadCaseService {
  constructor(
    private readonly repository: BadCaseRepository,
    private readonly config: AppConfig,
    private readonly intents: IntentService,
    private readonly rules: IntentRulesService,
    private readonly knowledge: KnowledgeService,
    private readonly audit: AuditLog,
  ) {}

  async listBadCases(tenantId: TenantId, query: { limit?: number; cursor?: string; status?: BadCaseReviewStatus }): Promise<Page<BadCaseDto>> {
    const page = pageRequest(query);
    const rows = await this.repository.listBadCases(tenantId, page.limit + 1, this.config.coverage.evaluatorVersion, page.after ?? undefined, query.status);
    const labels = await this.repository.labels(
      tenantId,
      rows.map((r) => r.sessionId),
    );
    const documents = await this.documentsOf(tenantId, labels.values());
    return toPage(rows, page.limit, (row) => toBadCaseDto(row, labels.get(row.sessionId), documents));
  }

  /**
   * PUT /admin/bad-cases/:sessionId/review (docs/learning.md "Review"): sets the given fields of the bad case's
   * review in one statement. Checked first, and a rejected request writes nothing: at least one field (400), an
   * intent of one of the tenant's rules and a knowledge document of the tenant (400, naming the field); then the
   * statement itself writes only for a bad case of the tenant (else 404). A document deleted after the check reads as none (no foreign key, migration 0170).
   */
  async review(tenantId: TenantId, sessionId: string, input: BadCaseReviewPatch): Promise<BadCaseDto> {
    if (isEmptyReview(input)) throw new FeedbackException(FeedbackErrorCode.EmptyReview);
    const patch = normalizeReview(input);
    const known = typeof patch.intent === 'string' ? await this.intents.knownIntents(tenantId) : new Set<string>();
    const found = typeof patch.documentId === 'string' ? await this.knowledge.documentRefs(tenantId, [patch.documentId]) : new Map<string, DocumentName>();
    const problems = reviewProblems(patch, known, new Set(found.keys()));
    if (problems.length) throw invalidRequest(problems);
    // The upsert writes only for a bad case of the tenant (it reads the feedback in the same statement): null = 404.
    const reviewed = await this.repository.upsertReview(tenantId, sessionId, patch, async (tx, row) =>
      this.audit.record(tx, tenantId, {
        action: 'review',
        resourceType: 'bad_case_review',
        resourceId: sessionId,
        label: await this.repository.sessionQuestion(tx, tenantId, sessionId),
        summary: { changed: Object.keys(patch), after: { intent: row.intent, documentId: row.documentId, note: row.note, status: row.status } },
      }),
    );
    if (reviewed === null) throw new FeedbackException(FeedbackErrorCode.BadCaseNotFound, sessionId);
    return this.getBadCase(tenantId, sessionId);
  }

  /** One bad case of the tenant, as listed. */
  async getBadCase(tenantId: TenantId, sessionId: string): Promise<BadCaseDto> {
    const row = await this.repository.findBadCase(tenantId, sessionId, this.config.coverage.evaluatorVersion);
    if (row === null) throw new FeedbackException(FeedbackErrorCode.BadCaseNotFound, sessionId);
    const labels = await this.repository.labels(tenantId, [sessionId]);
    return toBadCaseDto(row, labels.get(sessionId), await this.documentsOf(tenantId, labels.values()));
  }

  /** The tenant's knowledge documents the records name, by id, through the retrieval lib (deleted ones are absent). */
  private async documentsOf(tenantId: TenantId, records: Iterable<BadCaseLabelRow>): Promise<ReadonlyMap<string, DocumentName>> {
    const ids = [...records].flatMap((r) => (r.documentId === null ? [] : [r.documentId]));
    return ids.length ? this.knowledge.documentRefs(tenantId, ids) : new Map();
  }

  /** Bad cases marked in the window, counted per failure layer and rule (docs/learning.md "Failure attribution"). */
  async badCaseReport(tenantId: TenantId, query: { from?: string; to?: string }): Promise<BadCaseReportDto> {
    const fromTs = query.from !== undefined ? new Date(query.from).toISOString() : null;
    const toTs = query.to !== undefined ? new Date(query.to).toISOString() : null;
    if (fromTs !== null && toTs !== null && fromTs >= toTs)
      throw new FeedbackException(FeedbackErrorCode.InvalidRange, `from (${query.from}) is not before to (${query.to})`);
    const counts = emptyLayerCounts();
    let total = 0;
    for (const g of await this.repository.badCaseFacts(tenantId, this.config.coverage.evaluatorVersion, fromTs, toTs)) {
      addAttribution(counts, factsFromRow(g), g.count);
      total += g.count;
    }
    return { from: fromTs, to: toTs, total, byLayer: counts.byLayer, byReason: counts.byReason };
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
