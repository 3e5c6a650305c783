import { Injectable } from '@nestjs/common';
import { invalidRequest, MetricsService, pageRequest, toPage, type Page, type TenantId } from '@arbiter/common';
import { AuditLog } from '@arbiter/tenancy';
import type { CaseDto } from './dto/case.dto.js';
import type { CaseLibrarySettingsDto } from './dto/case-library-settings.dto.js';
import { CaseLibraryAnswers } from './case-library-answers.js';
import { CaseLibraryErrorCode, CaseLibraryException } from './case-library.exception.js';
import { CaseLibraryRepository, type CaseEdit, type CaseLibrarySettingsRow, type CaseRow } from './case-library.repository.js';
import type { CaseSourceType, FaultCategory } from './case-library.types.js';
import { caseThresholdProblems, DEFAULT_CASE_ANSWER_THRESHOLD } from './case-matcher.js';

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

function toSettingsDto(row: CaseLibrarySettingsRow): CaseLibrarySettingsDto {
  return { threshold: row.threshold ?? DEFAULT_CASE_ANSWER_THRESHOLD, isDefault: row.threshold === null, version: row.version };
}

/** What a feedback post did to its session's AUTO case (docs/spec/feedback.md). */
export type SessionCaseEvent = 'created' | 'restored' | 'retracted';

/**
 * The case library and feedback that teaches (docs/learning.md "Feedback that teaches"): operators list, create,
 * edit and retract cases and set the answer threshold; every change that can change an answer invalidates this
 * replica's case index at once (others follow within the version poll, `CaseLibraryAnswers`).
 */
@Injectable()
export class CaseLibraryService {
  private readonly caseEvents;

  constructor(
    private readonly repository: CaseLibraryRepository,
    private readonly answers: CaseLibraryAnswers,
    metrics: MetricsService,
    private readonly audit: AuditLog,
  ) {
    this.caseEvents = metrics.counter('arbiter_case_library_events_total', 'Case library changes (created|restored|retracted|manual_created|edited)', [
      'event',
    ]);
  }

  /**
   * A feedback post changed its session's AUTO case (in the post's own statement, through
   * `CaseLibraryRepository.sessionCaseCte`): counted, and the case library's answers on this replica follow at once
   * (other replicas: the version poll).
   */
  sessionCaseChanged(tenantId: TenantId, event: SessionCaseEvent): void {
    this.caseEvents.inc({ event });
    this.answers.invalidate(tenantId);
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
    if (!row) throw new CaseLibraryException(CaseLibraryErrorCode.CaseNotFound, id);
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
      throw new CaseLibraryException(CaseLibraryErrorCode.EmptyPatch);
    }
    const row = await this.repository.editCase(tenantId, id, patch, (tx, edited) =>
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
    if (!row) throw new CaseLibraryException(CaseLibraryErrorCode.CaseNotFound, id);
    this.caseEvents.inc({ event: 'edited' });
    if (patch.query !== undefined || patch.answer !== undefined) this.answers.invalidate(tenantId);
    return toCaseDto(row);
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
    if (!retracted) throw new CaseLibraryException(CaseLibraryErrorCode.CaseNotFound, id);
    this.answers.invalidate(tenantId);
    this.caseEvents.inc({ event: 'retracted' });
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
}
