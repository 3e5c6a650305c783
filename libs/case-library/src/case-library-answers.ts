import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { MetricsService, PeriodicPoll, type TenantId } from '@arbiter/common';
import { CaseLibraryRepository } from './case-library.repository.js';
import { CaseIndex, DEFAULT_CASE_ANSWER_THRESHOLD } from './case-matcher.js';
import type { CaseSourceType } from './case-library.types.js';

/** How often replicas compare their cached versions with the database (as the intent router cache). */
export const CASE_INDEX_POLL_MS = 250;
/** Tenants kept indexed in memory (least recently used evicted). */
export const CASE_INDEX_MAX_TENANTS = 500;
/** Active cases indexed per tenant: the most recently changed ones. */
export const CASE_INDEX_MAX_CASES = 10_000;
/** Characters of questions and answers kept across all tenants (least recently used tenants evicted beyond). */
export const CASE_INDEX_MAX_CHARS = 64_000_000;

interface TenantCases {
  index: CaseIndex;
  threshold: number;
  version: string;
  chars: number;
}

/** A verified case that answers a message. */
export interface CaseAnswer {
  caseId: string;
  query: string;
  answer: string;
  sourceType: CaseSourceType;
  similarity: number;
  threshold: number;
  /** The version of the tenant's cases the index was built from. */
  version: string;
}

/** The outcome of a lookup: the answering case, or the best similarity seen below the threshold. */
export type CaseLookup = { kind: 'answer'; answer: CaseAnswer } | { kind: 'none'; bestSimilarity: number | null; threshold: number; cases: number };

/**
 * Per-tenant in-memory index of verified cases (active AUTO and MANUAL) for the chat turn: no round trip
 * once a tenant is loaded. Writes on this replica invalidate it at once (`invalidate`, called by
 * `CaseLibraryService` after a case change commits); other replicas notice within {@link CASE_INDEX_POLL_MS}
 * by polling the tenant's version, the sum of its `case_library_version` slots (bumped by triggers on
 * `case_library` and `case_library_settings` in the writer's own statement) — one indexed statement for all
 * loaded tenants. A load reads the
 * version, the threshold and the cases in one statement (one snapshot), so an index never pairs cases
 * with a version they do not belong to. A reload after a poll happens in the background (the previous
 * index serves meanwhile); after a local invalidation the next lookup waits for the fresh one.
 */
@Injectable()
export class CaseLibraryAnswers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('CaseLibraryAnswers');
  private readonly entries = new Map<string, TenantCases>();
  private readonly loading = new Map<string, Promise<TenantCases>>();
  private readonly generation = new Map<string, number>();
  private chars = 0;
  private readonly poller = new PeriodicPoll(
    () => this.poll(),
    CASE_INDEX_POLL_MS,
    () => this.entries.size === 0,
  );
  private readonly lookups;
  private readonly loads;

  constructor(
    private readonly repository: CaseLibraryRepository,
    metrics: MetricsService,
  ) {
    this.lookups = metrics.counter(
      'arbiter_case_library_lookups_total',
      'Chat messages matched against the case library (answered|below_threshold|empty|failed)',
      ['result'],
    );
    this.loads = metrics.counter('arbiter_case_library_index_loads_total', 'Case index loads by cause (miss|version)', ['cause']);
  }

  onApplicationBootstrap(): void {
    this.poller.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.poller.stop();
    await Promise.allSettled([...this.loading.values()]);
  }

  /**
   * Matches a message against the tenant's verified cases. Never throws: a failed load is logged and
   * reported as no answer (the turn goes on to the knowledge base).
   */
  async lookup(tenantId: TenantId, message: string): Promise<CaseLookup> {
    let entry: TenantCases;
    try {
      entry = await this.get(tenantId);
    } catch (error) {
      this.lookups.inc({ result: 'failed' });
      this.logger.warn({ msg: 'case index load failed; the turn goes on without the case library', tenantId, err: (error as Error).message });
      return { kind: 'none', bestSimilarity: null, threshold: DEFAULT_CASE_ANSWER_THRESHOLD, cases: 0 };
    }
    if (entry.index.size === 0) {
      this.lookups.inc({ result: 'empty' });
      return { kind: 'none', bestSimilarity: null, threshold: entry.threshold, cases: 0 };
    }
    const best = entry.index.best(message);
    if (best === null || best.similarity < entry.threshold) {
      this.lookups.inc({ result: 'below_threshold' });
      return { kind: 'none', bestSimilarity: best?.similarity ?? 0, threshold: entry.threshold, cases: entry.index.size };
    }
    this.lookups.inc({ result: 'answered' });
    return {
      kind: 'answer',
      answer: {
        caseId: best.case.id,
        query: best.case.query,
        answer: best.case.answer,
        sourceType: best.case.sourceType,
        similarity: best.similarity,
        threshold: entry.threshold,
        version: entry.version,
      },
    };
  }

  /** Drops this replica's index of the tenant (after a case or threshold change here); the next lookup reloads. */
  invalidate(tenantId: TenantId): void {
    this.generation.set(tenantId, (this.generation.get(tenantId) ?? 0) + 1);
    this.drop(tenantId);
    this.loading.delete(tenantId);
  }

  private async get(tenantId: string): Promise<TenantCases> {
    const entry = this.entries.get(tenantId);
    if (entry !== undefined) {
      this.entries.delete(tenantId);
      this.entries.set(tenantId, entry);
      return entry;
    }
    return this.load(tenantId, 'miss');
  }

  private load(tenantId: string, cause: 'miss' | 'version'): Promise<TenantCases> {
    const pending = this.loading.get(tenantId);
    if (pending !== undefined) return pending;
    const gen = this.generation.get(tenantId) ?? 0;
    const promise = this.repository
      .indexSnapshot(tenantId as TenantId, CASE_INDEX_MAX_CASES)
      .then((snapshot): TenantCases => {
        const entry: TenantCases = {
          index: CaseIndex.build(snapshot.cases),
          threshold: snapshot.threshold ?? DEFAULT_CASE_ANSWER_THRESHOLD,
          version: snapshot.version,
          chars: snapshot.cases.reduce((n, c) => n + c.query.length + c.answer.length, 0),
        };
        if ((this.generation.get(tenantId) ?? 0) === gen && !this.poller.stopped) {
          this.drop(tenantId);
          this.entries.set(tenantId, entry);
          this.chars += entry.chars;
          this.evict();
          this.loads.inc({ cause });
        }
        return entry;
      })
      .finally(() => {
        if (this.loading.get(tenantId) === promise) this.loading.delete(tenantId);
      });
    this.loading.set(tenantId, promise);
    return promise;
  }

  private drop(tenantId: string): void {
    const entry = this.entries.get(tenantId);
    if (entry === undefined) return;
    this.chars -= entry.chars;
    this.entries.delete(tenantId);
  }

  private async poll(): Promise<void> {
    const tenants = [...this.entries.keys()];
    let current: Map<string, string>;
    try {
      current = await this.repository.versions(tenants);
    } catch (error) {
      this.logger.warn({ msg: 'case index version poll failed', err: error instanceof Error ? error.message : String(error) });
      return;
    }
    for (const tenantId of tenants) {
      const entry = this.entries.get(tenantId);
      if (entry === undefined || entry.version === (current.get(tenantId) ?? '0')) continue;
      this.load(tenantId, 'version').catch((error: unknown) => {
        this.logger.warn({ msg: 'case index reload failed; serving the previous one', tenantId, err: error instanceof Error ? error.message : String(error) });
      });
    }
  }

  private evict(): void {
    while (this.entries.size > CASE_INDEX_MAX_TENANTS || (this.chars > CASE_INDEX_MAX_CHARS && this.entries.size > 1)) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }
}
