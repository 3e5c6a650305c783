import { Injectable } from '@nestjs/common';
import { pageRequest, toPage, type TenantId } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { AuditLog } from '@arbiter/tenancy';
import type {
  ConversationDetailDto,
  ConversationPageDto,
  SessionTraceDto,
  StatsDto,
  StatsRebuildDto,
  ToolInvocationTraceDto,
} from './dto/monitoring-response.dto.js';
import type { ListConversationsQueryDto, StatsQueryDto } from './dto/monitoring-query.dto.js';
import { cohensKappa, DEFAULT_SELF_EVALUATION_THRESHOLD } from './agreement.js';
import { MonitoringErrorCode, MonitoringException } from './monitoring.exception.js';
import { MonitoringRepository, type ResolvedWindow, type SessionDetailRow, type ToolInvocationRow } from './monitoring.repository.js';
import { assembleStats, camelKeys } from './stats-assembler.js';
import { StatsRollupRepository } from './stats-rollup.repository.js';
import { DEFAULT_STATS_DAYS, MAX_STATS_DAYS, parseTimeBound, type TimeBound } from './time-bound.js';

const DEFAULT_PAGE_SIZE = 50;
const DAY_MS = 86_400_000;

const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
const isoOrNull = (d: Date | string | null): string | null => (d === null ? null : iso(d));

/** Conversation traces and aggregates for operators (read-only over the other modules' tables). */
@Injectable()
export class MonitoringService {
  constructor(
    private readonly repository: MonitoringRepository,
    private readonly rollups: StatsRollupRepository,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async listConversations(tenantId: TenantId, query: ListConversationsQueryDto): Promise<ConversationPageDto> {
    const page = pageRequest(query, DEFAULT_PAGE_SIZE);
    const window = await this.window(tenantId, query.from, query.to, null);
    const rows = await this.repository.listConversations(
      tenantId,
      { window, channel: query.channel ?? null, status: query.status ?? null, intent: query.intent ?? null },
      page.after,
      page.limit + 1,
    );
    return toPage(rows, page.limit, (r) => ({
      id: r.id,
      channel: r.channel,
      userRef: r.userRef,
      sessionCount: r.sessionCount,
      createdAt: iso(r.createdAt),
      lastActivityAt: iso(r.lastActivityAt),
      lastStatus: r.lastStatus,
      lowestConfidence: r.lowestConfidence === null ? null : Number(r.lowestConfidence),
      anyBadCase: r.anyBadCase,
    }));
  }

  /** The conversation with every session's full trace: one statement whatever the session count. */
  async conversation(tenantId: TenantId, conversationId: string): Promise<ConversationDetailDto> {
    const row = await this.repository.conversationDetail(tenantId, conversationId, this.config.coverage.evaluatorVersion);
    if (!row) throw new MonitoringException(MonitoringErrorCode.ConversationNotFound, conversationId);
    const bySession = new Map<string, ToolInvocationTraceDto[]>();
    for (const t of row.toolInvocations) {
      const list = bySession.get(t.sessionId) ?? [];
      list.push(toInvocation(t));
      bySession.set(t.sessionId, list);
    }
    return {
      id: row.id,
      channel: row.channel,
      userRef: row.userRef,
      createdAt: iso(row.createdAt),
      lastActivityAt: iso(row.lastActivityAt),
      sessionCount: row.sessions.length,
      sessions: row.sessions.map((s) => toSessionTrace(s, bySession.get(s.id) ?? [])),
    };
  }

  async stats(tenantId: TenantId, query: StatsQueryDto): Promise<StatsDto> {
    const window = await this.window(tenantId, query.from, query.to, DEFAULT_STATS_DAYS);
    const { fromTs, toTs } = window;
    if (fromTs === null || toTs === null) throw new Error('stats window must be closed');
    if (Date.parse(toTs) - Date.parse(fromTs) > (MAX_STATS_DAYS + 1) * DAY_MS) {
      throw new MonitoringException(MonitoringErrorCode.InvalidRange, `the window is longer than ${MAX_STATS_DAYS} days`, { fields: ['from', 'to'] });
    }
    const evaluatorVersion = this.config.coverage.evaluatorVersion;
    const byDay = query.groupBy === 'day';
    // From the rollups (docs/hot-paths.md, "Stats"): fold the deltas appended since the last read, then
    // read rollup + any newer deltas + the window's partial-bucket edges — exact, not eventually so.
    const threshold = query.selfEvaluationThreshold ?? DEFAULT_SELF_EVALUATION_THRESHOLD;
    // Agreement is opt-in: it reads the window's feedback rows, the rest reads rollups only (docs/learning.md
    // "Agreement"); both run side by side.
    const readRollups = async () => {
      await this.rollups.fold(tenantId);
      return this.rollups.stats(tenantId, { timeZone: window.timeZone, fromTs, toTs }, evaluatorVersion, byDay);
    };
    const [rows, tables] = await Promise.all([
      readRollups(),
      query.agreement === 'true' ? this.repository.agreementTables(tenantId, { fromTs, toTs }, evaluatorVersion, threshold) : null,
    ]);
    const assembled = assembleStats(rows.sessions, rows.coverage);
    return {
      from: fromTs,
      to: toTs,
      timeZone: window.timeZone,
      evaluatorVersion,
      groupBy: byDay ? 'day' : null,
      totals: assembled.totals,
      ...(byDay ? { byDay: assembled.byDay } : {}),
      ...(tables !== null
        ? {
            agreement: {
              period: 'feedback' as const,
              selfEvaluationThreshold: threshold,
              selfEvaluation: cohensKappa(tables.selfEvaluation),
              coverage: cohensKappa(tables.coverage),
            },
          }
        : {}),
    };
  }

  /** The backfill: recomputes this tenant's stats rollup from its sessions and coverage decisions. */
  async rebuildStats(tenantId: TenantId): Promise<StatsRebuildDto> {
    const started = performance.now();
    const result = await this.rollups.rebuild(tenantId, (tx, rebuilt) =>
      this.audit.record(tx, tenantId, { action: 'rebuild', resourceType: 'stats_rollup', label: 'stats rollups', summary: { ...rebuilt } }),
    );
    return { ...result, durationMs: Math.round(performance.now() - started) };
  }

  private async window(tenantId: TenantId, rawFrom: string | undefined, rawTo: string | undefined, defaultDays: number | null): Promise<ResolvedWindow> {
    const from = this.bound(rawFrom, 'from');
    const to = this.bound(rawTo, 'to');
    const window = await this.repository.resolveWindow(tenantId, from, to, defaultDays);
    // The tenant authenticated this request, so its row exists.
    if (!window) throw new Error(`tenant ${tenantId} not found`);
    if (window.fromTs !== null && window.toTs !== null && Date.parse(window.fromTs) >= Date.parse(window.toTs)) {
      throw new MonitoringException(MonitoringErrorCode.InvalidRange, `from (${rawFrom ?? 'default'}) is after to (${rawTo ?? 'default'})`, {
        fields: ['from', 'to'],
      });
    }
    return window;
  }

  private bound(raw: string | undefined, field: 'from' | 'to'): TimeBound | null {
    if (raw === undefined) return null;
    const bound = parseTimeBound(raw);
    if (!bound) throw new MonitoringException(MonitoringErrorCode.InvalidRange, `${field} is not a date or instant`, { field });
    return bound;
  }
}

function toInvocation(t: ToolInvocationRow): ToolInvocationTraceDto {
  return {
    id: t.id,
    toolName: t.toolName,
    arguments: t.arguments,
    status: t.status,
    resultSummary: t.resultSummary,
    relevanceLevel: t.relevanceLevel,
    dedupReason: t.dedupReason,
    retrievalDetails: camelKeys(t.retrievalDetails),
    durationMs: t.durationMs,
    error: t.error,
    createdAt: iso(t.createdAt),
  };
}

function toSessionTrace(s: SessionDetailRow, toolInvocations: ToolInvocationTraceDto[]): SessionTraceDto {
  return {
    id: s.id,
    channel: s.channel,
    userRef: s.userRef,
    query: s.query,
    answer: s.answer,
    status: s.status,
    intent: s.intent,
    stepCount: s.stepCount,
    toolCallCount: s.toolCallCount,
    references: s.references,
    media: s.media,
    knowledgeSearched: s.knowledgeSearched,
    routeTrace: s.routeTrace,
    toolInvocations,
    selfEvaluation: s.selfEvaluation,
    coverage:
      s.coverageVerdict === null
        ? null
        : {
            verdict: s.coverageVerdict,
            reasonCode: s.coverageReasonCode ?? '',
            evaluatorVersion: s.coverageEvaluatorVersion ?? '',
            referenceCount: Number(s.coverageReferenceCount ?? 0),
            topScore: Number(s.coverageTopScore ?? 0),
            decidedAt: isoOrNull(s.coverageDecidedAt) ?? '',
          },
    feedback: s.feedback === null ? null : { value: s.feedback, comment: s.feedbackComment, updatedAt: isoOrNull(s.feedbackAt) },
    latencyMs: s.latencyMs,
    error: s.error,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    finishedAt: isoOrNull(s.finishedAt),
  };
}
