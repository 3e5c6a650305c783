import { Injectable, Logger } from '@nestjs/common';
import { MetricsService, type TenantId } from '@arbiter/common';
import {
  addAttribution,
  dominantLayer,
  emptyLayerCounts,
  factsFromRow,
  runSucceeded,
  type DiagnosisSessionEntity,
  type FailureLayer,
  type FailureReason,
  type FinishPlan,
  type SessionCoverageSummary,
} from '@arbiter/sessions';
import { decideStoredSession } from './coverage-decider.js';
import { CoverageRepository, type DecisionRow, type GapRow, type StoredDecision } from './coverage.repository.js';
import { CoverageEvaluatorRegistry } from './evaluator/coverage-evaluator.registry.js';
import { COVERAGE_REASON_CODES, type CoverageReasonCode } from './evaluator/coverage.types.js';
import { resolveDateRange, type DateRange } from './report-range.js';

export const REPORT_GROUPS = ['day', 'channel', 'reason', 'layer'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];
/**
 * Without `groupBy`: every breakdown but `layer`, which reads each uncovered session of the window (its trace and
 * lookups; ~1 s for 100k uncovered sessions) where the others read only the decisions — asked for explicitly.
 */
export const DEFAULT_REPORT_GROUPS: readonly ReportGroup[] = ['day', 'channel', 'reason'];

export interface ReportQuery {
  from?: string;
  to?: string;
  channel?: string;
  timeZone?: string;
  evaluatorVersion?: string;
  groupBy?: ReportGroup[];
}

export interface CoverageCounts {
  total: number;
  covered: number;
  uncovered: number;
  /** covered / total, null with no decisions (not 0: nothing was measured). */
  coverageRate: number | null;
}

export interface CoverageReport extends CoverageCounts {
  evaluatorVersion: string;
  from: string;
  to: string;
  timeZone: string;
  channel: string | null;
  groupBy: ReportGroup[];
  /** Every reason code, zero included (when grouped by reason). */
  byReason?: Record<CoverageReasonCode, number>;
  byChannel?: ({ channel: string } & CoverageCounts)[];
  /** Every calendar day of the window, zero days included (when grouped by day). */
  byDay?: ({ date: string } & CoverageCounts)[];
  /** Uncovered sessions per failure layer and per attribution rule, zeros included (when grouped by layer; docs/learning.md "Failure attribution"). */
  byLayer?: Record<FailureLayer, number>;
  byLayerReason?: Record<FailureReason, number>;
}

export interface GapsQuery {
  from?: string;
  to?: string;
  channel?: string;
  timeZone?: string;
  evaluatorVersion?: string;
  limit?: number;
}

export interface CoverageGap {
  normalizedText: string;
  /** The most recent query of the group, as the user wrote it. */
  sampleQuery: string | null;
  count: number;
  lastSeenAt: string;
  reasonCodes: CoverageReasonCode[];
  sampleSessionIds: string[];
  /** The group's most frequent failure layer (ties: the upstream one). */
  layer: FailureLayer | null;
  /** The group's sessions per failure layer, zeros included. */
  byLayer: Record<FailureLayer, number>;
}

export interface CoverageGaps {
  evaluatorVersion: string;
  from: string;
  to: string;
  timeZone: string;
  channel: string | null;
  items: CoverageGap[];
}

export const DEFAULT_GAPS_LIMIT = 50;

function counts(total: number, covered: number): CoverageCounts {
  return { total, covered, uncovered: total - covered, coverageRate: total ? Math.round((covered / total) * 10_000) / 10_000 : null };
}

function eachDay(range: DateRange): string[] {
  const out: string[] = [];
  const start = Date.parse(`${range.from}T00:00:00Z`);
  for (let i = 0; i < range.days; i++) out.push(new Date(start + i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

@Injectable()
export class CoverageService {
  private readonly logger = new Logger('Coverage');
  private readonly decisionsCounter;
  private readonly rejectedCounter;

  constructor(
    private readonly repository: CoverageRepository,
    private readonly registry: CoverageEvaluatorRegistry,
    metrics: MetricsService,
  ) {
    this.decisionsCounter = metrics.counter('arbiter_coverage_decisions_total', 'Coverage decisions written', ['verdict', 'reason_code', 'source']);
    this.rejectedCounter = metrics.counter('arbiter_coverage_rejected_total', 'Sessions the coverage evaluator refused', ['code', 'source']);
  }

  get currentVersion(): string {
    return this.registry.currentVersion;
  }

  /**
   * The session-finished hook: decides a succeeded run with the current evaluator (failed runs have no
   * coverage, also once feedback made them BAD_CASE). Idempotent. A session with malformed stored references is logged and counted.
   */
  async onSessionFinished(tenantId: TenantId, session: DiagnosisSessionEntity): Promise<void> {
    const row = this.decide(tenantId, session);
    if (!row) return;
    const inserted = await this.repository.insertDecisions(tenantId, [row]);
    if (inserted) this.decisionsCounter.inc({ verdict: row.verdict, reason_code: row.reasonCode, source: 'hook' });
  }

  /**
   * The same as `onSessionFinished`, planned into the session's finish statement (docs/hot-paths.md
   * "Chat turn"): the decision row is inserted by a CTE of that statement.
   */
  planSessionFinished(tenantId: TenantId, session: DiagnosisSessionEntity): FinishPlan {
    const row = this.decide(tenantId, session);
    if (!row) return {};
    return {
      cte: () => this.repository.insertDecisionCte(row),
      done: (inserted) => {
        if (inserted) this.decisionsCounter.inc({ verdict: row.verdict, reason_code: row.reasonCode, source: 'hook' });
      },
    };
  }

  /** The current evaluator's decision row for a finished session; null when it is not decided (failed run, or rejected: counted and logged). */
  private decide(tenantId: TenantId, session: DiagnosisSessionEntity): DecisionRow | null {
    if (!runSucceeded(session)) return null;
    const evaluator = this.registry.current();
    const outcome = decideStoredSession(evaluator, tenantId, {
      id: session.id,
      createdAt: session.createdAt.toISOString(),
      channel: session.channel,
      status: session.status,
      outcome: session.outcome,
      query: session.query,
      answer: session.answer,
      references: session.references,
      media: session.media,
      knowledgeSearched: session.knowledgeSearched,
    });
    if (!outcome.ok) {
      this.rejectedCounter.inc({ code: outcome.rejected.code, source: 'hook' });
      this.logger.warn({ msg: 'coverage not decided', sessionId: session.id, code: outcome.rejected.code, reason: outcome.rejected.message });
      return null;
    }
    return outcome.row;
  }

  /** Session-view enricher: the current-version decision of each session, when there is one. */
  async summaries(tenantId: TenantId, sessionIds: string[]): Promise<Map<string, { coverage: SessionCoverageSummary }>> {
    const decisions = await this.repository.findDecisions(tenantId, sessionIds, this.registry.currentVersion);
    const out = new Map<string, { coverage: SessionCoverageSummary }>();
    for (const [id, d] of decisions) out.set(id, { coverage: toSummary(d) });
    return out;
  }

  /** Records written by the backfill job (for metrics). */
  countBackfilled(decided: number): void {
    if (decided > 0) this.decisionsCounter.inc({ verdict: 'any', reason_code: 'any', source: 'backfill' }, decided);
  }

  async report(tenantId: TenantId, query: ReportQuery): Promise<CoverageReport> {
    const evaluatorVersion = this.registry.get(query.evaluatorVersion ?? this.registry.currentVersion).version;
    const range = resolveDateRange({ from: query.from, to: query.to, timeZone: query.timeZone ?? (await this.repository.tenantTimeZone(tenantId)) });
    const groupBy = query.groupBy?.length ? [...new Set(query.groupBy)] : [...DEFAULT_REPORT_GROUPS];
    const rows = await this.repository.report(tenantId, evaluatorVersion, range, query.channel ?? null);
    const report: CoverageReport = {
      evaluatorVersion,
      from: range.from,
      to: range.to,
      timeZone: range.timeZone,
      channel: query.channel ?? null,
      groupBy,
      ...counts(rows.totals.total, rows.totals.covered),
    };
    if (groupBy.includes('reason')) {
      const byReason = Object.fromEntries(COVERAGE_REASON_CODES.map((c) => [c, 0])) as Record<CoverageReasonCode, number>;
      for (const r of rows.byReason) byReason[r.reasonCode] = r.total;
      report.byReason = byReason;
    }
    if (groupBy.includes('channel')) {
      report.byChannel = rows.byChannel
        .map((r) => ({ channel: r.channel, ...counts(r.total, r.covered) }))
        .sort((a, b) => b.total - a.total || a.channel.localeCompare(b.channel));
    }
    if (groupBy.includes('day')) {
      const byDate = new Map(rows.byDay.map((r) => [r.date, r]));
      report.byDay = eachDay(range).map((date) => ({ date, ...counts(byDate.get(date)?.total ?? 0, byDate.get(date)?.covered ?? 0) }));
    }
    if (groupBy.includes('layer')) {
      const layers = emptyLayerCounts();
      for (const g of await this.repository.uncoveredFacts(tenantId, evaluatorVersion, range, query.channel ?? null)) addAttribution(layers, factsFromRow(g), g.count);
      report.byLayer = layers.byLayer;
      report.byLayerReason = layers.byReason;
    }
    return report;
  }

  async gaps(tenantId: TenantId, query: GapsQuery): Promise<CoverageGaps> {
    const evaluatorVersion = this.registry.get(query.evaluatorVersion ?? this.registry.currentVersion).version;
    const range = resolveDateRange({ from: query.from, to: query.to, timeZone: query.timeZone ?? (await this.repository.tenantTimeZone(tenantId)) });
    const rows = await this.repository.gaps(tenantId, evaluatorVersion, range, query.channel ?? null, query.limit ?? DEFAULT_GAPS_LIMIT);
    const layers = new Map<string, ReturnType<typeof emptyLayerCounts>>();
    const facts = await this.repository.gapFacts(
      tenantId,
      evaluatorVersion,
      range,
      query.channel ?? null,
      rows.map((r) => r.gapKey),
    );
    for (const g of facts) {
      const into = layers.get(g.gapKey) ?? emptyLayerCounts();
      addAttribution(into, factsFromRow(g), g.count);
      layers.set(g.gapKey, into);
    }
    return {
      evaluatorVersion,
      from: range.from,
      to: range.to,
      timeZone: range.timeZone,
      channel: query.channel ?? null,
      items: rows.map((r) => toGap(r, (layers.get(r.gapKey) ?? emptyLayerCounts()).byLayer)),
    };
  }
}

function toSummary(d: StoredDecision): SessionCoverageSummary {
  return { verdict: d.verdict, reasonCode: d.reasonCode, evaluatorVersion: d.evaluatorVersion, referenceCount: d.referenceCount, topScore: Number(d.topScore) };
}

function toGap(r: GapRow, byLayer: Record<FailureLayer, number>): CoverageGap {
  return {
    normalizedText: r.gapKey,
    sampleQuery: r.sampleQuery,
    count: r.count,
    lastSeenAt: new Date(r.lastSeenAt).toISOString(),
    reasonCodes: r.reasonCodes,
    sampleSessionIds: r.sampleSessionIds,
    layer: dominantLayer(byLayer),
    byLayer,
  };
}
