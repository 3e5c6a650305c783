import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { CoverageService, resolveDateRange } from '@arbiter/coverage';
import { IntentConfigService } from '@arbiter/intent';
import { JOB_RUN_STATUSES, JobsService } from '@arbiter/jobs';
import { MonitoringService, STATS_DECISION_REASONS } from '@arbiter/monitoring';
import { SessionStatsRepository, type SessionDayWindow } from '@arbiter/sessions';
import { TenancyService } from '@arbiter/tenancy';
import type { ConsoleOverviewQueryDto } from './dto/console-query.dto.js';
import type { ConsoleOverviewDto } from './dto/console-overview.dto.js';
import { confidenceHistogram, countsOf, foldDecisionReasons, reliabilityOf } from './overview-shaping.js';

/** Gaps and failed job runs the overview lists. */
export const OVERVIEW_TOP_GAPS = 5;
export const OVERVIEW_RECENT_FAILURES = 5;

interface SessionCounts {
  sessions: number;
  badCases: number;
  useful: number;
  notUseful: number;
  decisionReasons: Record<string, number>;
}

/**
 * Read models of the operator console (docs/console.md): composes the providers of the libs that own the
 * figures; owns no table.
 */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly coverage: CoverageService,
    private readonly monitoring: MonitoringService,
    private readonly sessionStats: SessionStatsRepository,
    private readonly intentConfig: IntentConfigService,
    private readonly jobs: JobsService,
  ) {}

  /** Everything the Overview page shows, over one day window of the tenant's time zone (one round of parallel reads). */
  async overview(tenantId: TenantId, query: ConsoleOverviewQueryDto): Promise<ConsoleOverviewDto> {
    const tenant = await this.tenancy.getTenant(tenantId);
    // The tenant authenticated this request, so its row exists.
    if (!tenant) throw new Error(`tenant ${tenantId} not found`);
    // Resolved once (from after to, over 366 days → 400 naming from and to), then every reader gets explicit days.
    const range = resolveDateRange({ from: query.from, to: query.to, timeZone: tenant.timeZone });
    const window: SessionDayWindow = { from: range.from, to: range.to, timeZone: range.timeZone };
    const channel = query.channel ?? null;
    const days = { from: window.from, to: window.to, timeZone: window.timeZone, ...(channel !== null ? { channel } : {}) };

    const [report, counts, bins, config, gaps, byStatus, failures] = await Promise.all([
      this.coverage.report(tenantId, { ...days, groupBy: ['day'] }),
      this.sessionCounts(tenantId, window, channel),
      this.sessionStats.confidenceBins(tenantId, window, channel),
      this.intentConfig.effective(tenantId),
      this.coverage.gaps(tenantId, { ...days, limit: OVERVIEW_TOP_GAPS }),
      this.jobs.countByStatus(tenantId, window),
      this.jobs.list(tenantId, { status: 'failed' }, { limit: OVERVIEW_RECENT_FAILURES }),
    ]);

    return {
      window: { ...window, channel },
      coverageByDay: (report.byDay ?? []).map((d) => ({ date: d.date, evaluated: d.total, covered: d.covered, rate: d.coverageRate })),
      totals: { sessions: counts.sessions, coverageRate: report.coverageRate, useful: counts.useful, notUseful: counts.notUseful, badCases: counts.badCases },
      decisionReasons: counts.decisionReasons,
      confidenceHistogram: confidenceHistogram(bins),
      reliability: reliabilityOf(config.calibration),
      topGaps: gaps.items,
      jobs: {
        byStatus: countsOf(JOB_RUN_STATUSES, byStatus),
        recentFailures: failures.items.map((r) => ({ id: r.id, name: r.name, error: r.error, finishedAt: r.finishedAt?.toISOString() ?? null })),
      },
    };
  }

  /**
   * Without a channel: the monitoring stats (rollups). With one: the sessions' stored rows (the rollups have no
   * channel), reasons folded the way the stats fold them.
   */
  private async sessionCounts(tenantId: TenantId, window: SessionDayWindow, channel: string | null): Promise<SessionCounts> {
    if (channel !== null) {
      const totals = await this.sessionStats.windowTotals(tenantId, window, channel);
      return { ...totals, decisionReasons: foldDecisionReasons(totals.decisionReasons, STATS_DECISION_REASONS) };
    }
    const { totals } = await this.monitoring.stats(tenantId, { from: window.from, to: window.to });
    return {
      sessions: totals.sessions,
      badCases: totals.byStatus.BAD_CASE ?? 0,
      useful: totals.feedback.useful,
      notUseful: totals.feedback.notUseful,
      decisionReasons: totals.decisionReasons,
    };
  }
}
