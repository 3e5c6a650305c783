import { Injectable } from '@nestjs/common';
import { invalidRequest, MetricsService, pageRequest, toPage, type Page, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { IntentService } from '@arbiter/intent';
import { KnowledgeService } from '@arbiter/retrieval';
import { addAttribution, attributeFailure, emptyLayerCounts, factsFromRow, type FeedbackValue } from '@arbiter/sessions';
import { AuditLog } from '@arbiter/tenancy';
import type { BadCaseDto, BadCaseReportDto, CaseDto, FeedbackResultDto } from './dto/feedback.dto.js';
import { CaseLibraryAnswers } from './case-library-answers.js';
import { CaseLibraryRepository, type BadCaseLabelRow, type CaseEdit } from './case-library.repository.js';
import { isEmptyReview, labelOf, normalizeReview, reviewOf, reviewProblems, type BadCaseReviewPatch, type DocumentName } from './bad-case-review.js';
import { FeedbackErrorCode, FeedbackException } from './feedback.exception.js';
import { FeedbackRepository, type BadCaseRow, type CaseRow } from './feedback.repository.js';
import type { BadCaseReviewStatus, CaseSourceType, FaultCategory } from './feedback.types.js';

function toCaseDto(row: CaseRow): CaseDto {
  return {
    id: row.id,
    sessionId: row.sessionId,
    query: row.query,
    answer: row.answer,
    faultCategory: row.faultCategory,
    errorCode: row.errorCode,
    sourceType: row.sourceType,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

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

@Injectable()
export class FeedbackService {
  private readonly feedbackTotal;
  private readonly caseEvents;

  constructor(
    private readonly repository: FeedbackRepository,
    private readonly cases: CaseLibraryRepository,
    private readonly answers: CaseLibraryAnswers,
    private readonly config: AppConfig,
    private readonly intents: IntentService,
    private readonly knowledge: KnowledgeService,
    metrics: MetricsService,
    private readonly audit: AuditLog,
  ) {
    this.feedbackTotal = metrics.counter('arbiter_feedback_total', 'Feedback posts by value and result (applied|unchanged|rejected|not_found)', [
      'feedback',
      'result',
    ]);
    this.caseEvents = metrics.counter('arbiter_case_library_events_total', 'Case library changes (created|restored|retracted|manual_created|edited)', [
      'event',
    ]);
  }

  /** POST /api/feedback: one transaction; repeats are idempotent; rejected posts write nothing. */
  async submit(tenantId: TenantId, input: { sessionId: string; feedback: FeedbackValue; comment?: string }): Promise<FeedbackResultDto> {
    const outcome = await this.repository.applyFeedback(tenantId, input.sessionId, input.feedback, input.comment);
    switch (outcome.kind) {
      case 'not_found':
        this.feedbackTotal.inc({ feedback: input.feedback, result: 'not_found' });
        throw new FeedbackException(FeedbackErrorCode.SessionNotFound, input.sessionId);
      case 'rejected':
        this.feedbackTotal.inc({ feedback: input.feedback, result: 'rejected' });
        throw new FeedbackException(outcome.reason === 'SESSION_NOT_FINISHED' ? FeedbackErrorCode.SessionNotFinished : FeedbackErrorCode.NoAnswerToKeep);
      case 'ok':
        this.feedbackTotal.inc({ feedback: input.feedback, result: outcome.changed ? 'applied' : 'unchanged' });
        if (outcome.caseEvent) {
          this.caseEvents.inc({ event: outcome.caseEvent });
          // The case library's answers on this replica follow at once (other replicas: the version poll).
          this.answers.invalidate(tenantId);
        }
        return { sessionId: input.sessionId, feedback: outcome.feedback, status: outcome.status, caseId: outcome.caseId };
    }
  }

  async listBadCases(tenantId: TenantId, query: { limit?: number; cursor?: string; status?: BadCaseReviewStatus }): Promise<Page<BadCaseDto>> {
    const page = pageRequest(query);
    const rows = await this.repository.listBadCases(tenantId, page.limit + 1, this.config.coverage.evaluatorVersion, page.after ?? undefined, query.status);
    const labels = await this.cases.labels(
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
    const reviewed = await this.cases.upsertReview(tenantId, sessionId, patch, async (tx, row) =>
      this.audit.record(tx, tenantId, {
        action: 'review',
        resourceType: 'bad_case_review',
        resourceId: sessionId,
        label: await this.cases.sessionQuestion(tx, tenantId, sessionId),
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
    const labels = await this.cases.labels(tenantId, [sessionId]);
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

  async listCases(
    tenantId: TenantId,
    filter: { faultCategory?: FaultCategory; sourceType?: CaseSourceType },
    query: { limit?: number; cursor?: string },
  ): Promise<Page<CaseDto>> {
    const page = pageRequest(query);
    return toPage(await this.repository.listCases(tenantId, filter, page.limit + 1, page.after ?? undefined), page.limit, toCaseDto);
  }

  async getCase(tenantId: TenantId, id: string): Promise<CaseDto> {
    const row = await this.repository.findCase(tenantId, id);
    if (!row) throw new FeedbackException(FeedbackErrorCode.CaseNotFound, id);
    return toCaseDto(row);
  }

  async createManualCase(
    tenantId: TenantId,
    input: { query: string; answer: string; faultCategory?: FaultCategory; errorCode?: string | null },
  ): Promise<CaseDto> {
    const row = await this.repository.insertManualCase(
      tenantId,
      {
        query: input.query,
        answer: input.answer,
        faultCategory: input.faultCategory ?? 'GENERAL',
        errorCode: input.errorCode ?? null,
      },
      (tx, created) =>
        this.audit.record(tx, tenantId, {
          action: 'create',
          resourceType: 'case',
          resourceId: created.id,
          label: created.query,
          summary: { sourceType: created.sourceType, faultCategory: created.faultCategory, errorCode: created.errorCode },
        }),
    );
    this.caseEvents.inc({ event: 'manual_created' });
    this.answers.invalidate(tenantId);
    return toCaseDto(row);
  }

  /** Edits an active case; a new question or answer is what the chat answers with at once on this replica. */
  async updateCase(tenantId: TenantId, id: string, patch: CaseEdit): Promise<CaseDto> {
    if (patch.query === undefined && patch.answer === undefined && patch.faultCategory === undefined && patch.errorCode === undefined) {
      throw new FeedbackException(FeedbackErrorCode.EmptyPatch);
    }
    const row = await this.cases.editCase(tenantId, id, patch, (tx, edited) =>
      this.audit.record(tx, tenantId, {
        action: 'update',
        resourceType: 'case',
        resourceId: edited.id,
        label: edited.query,
        summary: {
          changed: Object.keys(patch).filter((k) => patch[k as keyof CaseEdit] !== undefined),
          sourceType: edited.sourceType,
          faultCategory: edited.faultCategory,
          errorCode: edited.errorCode,
        },
      }),
    );
    if (!row) throw new FeedbackException(FeedbackErrorCode.CaseNotFound, id);
    this.caseEvents.inc({ event: 'edited' });
    if (patch.query !== undefined || patch.answer !== undefined) this.answers.invalidate(tenantId);
    return toCaseDto(row);
  }
}
