import { Injectable, Logger } from '@nestjs/common';
import { FAST_LATENCY_BUCKETS, MetricsService, type TenantId } from '@arbiter/common';
import type { Expression } from '@arbiter/database';
import { SessionToolTrace, type TracedInvocation } from '@arbiter/sessions';
import { decideRetrieval, type DedupReason, type RetrievalCandidate } from './action-memory.js';
import { ActionMemoryRepository, ClaimLostError } from './action-memory.repository.js';
import type { LookupDto } from './dto/knowledge.dto.js';
import { HybridSearchService } from './hybrid-search.service.js';
import { gradeCalibrated } from './lexical/calibration.js';
import type { HybridCandidate } from './lexical/hybrid.js';
import type { CompletenessHint, RelevanceLevel } from './relevance.js';
import { calculateRetrievalConfidence, DEFAULT_CONFIDENCE_PROFILE, isConfidenceProfile, type RetrievalConfidence } from './retrieval-confidence.js';
import { RetrievalSettingsRepository, settingsRowFromJson, storedSettings, type StoredSettingsRow } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';
import { checkMetadataFilter, isEmptyFilter, type MetadataFilter } from './metadata-filter.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';

export const LOOKUP_TOOL_NAME = 'lookup_knowledge';

/** Write attempts of one lookup whose memory claims keep losing to concurrent lookups of its session. */
const MAX_CLAIM_ROUNDS = 50;

/**
 * One returned document — or section of a file (docs/retrieval.md "Sections of files") —: its best chunk (`content`), the seed's
 * `distance`/`similarity`, the calibrated `relevance` (docs/retrieval.md "Grading"), `matches`, `source`, and where the chunk came from
 * (`fileName`, `page`, `pageEnd`, `section`; null where absent).
 */
export type LookupResultItem = Pick<
  HybridCandidate,
  | 'documentId'
  | 'filePath'
  | 'title'
  | 'domain'
  | 'content'
  | 'distance'
  | 'similarity'
  | 'relevance'
  | 'matches'
  | 'source'
  | 'fileName'
  | 'page'
  | 'pageEnd'
  | 'section'
>;

/** How a caller inside the application asks for a lookup. */
export interface LookupOptions {
  /** With no `filter` in the request, apply the tenant's default filter (the chat: docs/retrieval.md "Metadata filters"). */
  tenantDefaultFilter?: boolean;
  /**
   * The session was opened by the caller's own statement, which also read the tenant's settings row
   * (`LookupService.settingsJson`): its first lookup skips the read statement and decides from an empty memory;
   * the write then fails if the session had live memory after all, and the lookup reads and decides again
   * (docs/hot-paths.md "Chat turn").
   */
  freshSession?: { settings: StoredSettingsRow | null };
}

/** The request's filter, checked: 400 naming each bad field (`filter.<key>`) before anything is read or written. */
export function requestFilter(value: unknown, field = 'filter'): MetadataFilter | undefined {
  if (value === undefined) return undefined;
  const checked = checkMetadataFilter(value, field);
  if (!checked.ok)
    throw new RetrievalException(RetrievalErrorCode.INVALID_FILTER, checked.problems.map((p) => `${p.field}: ${p.message}`).join('; '), {
      fields: checked.problems.map((p) => p.field),
      errors: checked.problems,
    });
  return checked.filter;
}

/** A result item of a candidate (the fields the API returns, in order). */
function resultItem(c: LookupResultItem): LookupResultItem {
  return {
    documentId: c.documentId,
    filePath: c.filePath,
    title: c.title,
    domain: c.domain,
    content: c.content,
    distance: c.distance,
    similarity: c.similarity,
    relevance: c.relevance,
    matches: c.matches,
    source: c.source,
    fileName: c.fileName,
    page: c.page,
    pageEnd: c.pageEnd,
    section: c.section,
  };
}

export interface LookupResult {
  results: LookupResultItem[];
  relevanceLevel: RelevanceLevel;
  completenessHint: CompletenessHint | null;
  l0MatchCount: number;
  l1TopSimilarity: number | null;
  domain: string | null;
  retrievedDomainsThisSession: string[];
  dedupReason: DedupReason | null;
  confidence: RetrievalConfidence;
}

type Candidate = RetrievalCandidate & LookupResultItem;

@Injectable()
export class LookupService {
  private readonly logger = new Logger('KnowledgeLookup');
  private readonly lookups;
  private readonly latency;

  constructor(
    private readonly search: HybridSearchService,
    private readonly memory: ActionMemoryRepository,
    private readonly settings: RetrievalSettingsService,
    private readonly settingsRepository: RetrievalSettingsRepository,
    private readonly toolTrace: SessionToolTrace,
    metrics: MetricsService,
  ) {
    this.lookups = metrics.counter('arbiter_retrieval_lookups_total', 'Knowledge lookups by relevance level and dedup reason', [
      'relevance_level',
      'dedup_reason',
    ]);
    this.latency = metrics.histogram('arbiter_retrieval_lookup_seconds', 'Knowledge lookup latency', [], FAST_LATENCY_BUCKETS);
  }

  /**
   * One lookup in three statements and no transaction round trips (docs/hot-paths.md "Chat turn"): the
   * session's memory with the tenant's settings, the candidates of both indexes in one statement, then one write of
   * the memory claims and the tool invocation. A claim lost to a concurrent lookup of the same session
   * writes nothing: the memory is read again and the decision made again (at most `MAX_CLAIM_ROUNDS`).
   */
  async lookup(tenantId: TenantId, dto: LookupDto, options: LookupOptions = {}): Promise<LookupResult> {
    const started = performance.now();
    const asked = requestFilter(dto.filter);
    const topK = dto.topK ?? 5;
    const query = dto.query.trim();
    const domainFilter = dto.domain?.trim() || undefined;
    // Embed first: a remote provider must never hold a connection.
    // The translation's vector alongside (docs/retrieval.md "Cross-language retrieval"): a remote
    // provider gets both calls at once, so the lookup waits for one round trip.
    const [vector, translatedVector] = await Promise.all([this.search.embed(query), this.search.embedTranslation(query)]);
    const fresh = options.freshSession;
    const first = fresh
      ? { memory: { docs: new Set<string>(), domains: new Map<string, { strong: boolean }>() }, settings: fresh.settings }
      : await this.memory.readForLookup(tenantId, dto.sessionId, this.settingsRepository.jsonSubquery(tenantId));
    const settings = this.settings.effective(storedSettings(first.settings));
    // Each index is read by one statement (a document being replaced is seen wholly old or wholly new).
    const filter = asked ?? (options.tenantDefaultFilter ? settings.defaultFilter : undefined);
    const found = await this.search.search(tenantId, { query, vector, translatedVector, domain: domainFilter, filter }, settings);
    const candidates: Candidate[] = found.candidates.map(resultItem);
    const top = found.candidates[0];
    const grade = gradeCalibrated(top ? { relevance: top.relevance, exactHit: top.source === 'L0' } : null, settings.normalization);
    const profile = this.resolveProfile(dto);

    let memory = first.memory;
    // Only the first write may rest on the assumed empty memory; a retry has read it.
    let assumedEmpty = fresh !== undefined;
    for (let round = 1; ; round++) {
      const decision = decideRetrieval({ candidates, relevanceLevel: grade.relevanceLevel, memory, topK });
      const results: LookupResultItem[] = decision.results.map(resultItem);
      // The retrieval confidence's relevance (docs/spec/evaluation.md §2) is the calibrated one (docs/retrieval.md "Grading"): it means the same with any embedder.
      const confidence = calculateRetrievalConfidence(
        results.map((r) => ({ relevance: r.relevance, matches: r.matches })),
        profile,
      );
      const result: LookupResult = {
        results,
        relevanceLevel: grade.relevanceLevel,
        completenessHint: grade.completenessHint,
        l0MatchCount: found.exactMatchCount,
        l1TopSimilarity: found.vectorTopSimilarity,
        domain: decision.domain,
        retrievedDomainsThisSession: decision.retrievedDomainsThisSession,
        dedupReason: decision.dedupReason,
        confidence,
      };
      const durationMs = Math.round(performance.now() - started);
      try {
        await this.memory.commitLookup(
          tenantId,
          dto.sessionId,
          decision.marks,
          settings.memoryTtlSeconds,
          this.toolTrace.invocationCtes(tenantId, dto.sessionId, query, this.invocation(dto, result, durationMs, filter)),
          assumedEmpty,
        );
      } catch (error) {
        if (!(error instanceof ClaimLostError) || round >= MAX_CLAIM_ROUNDS) throw error;
        assumedEmpty = false;
        memory = (await this.memory.readForLookup(tenantId, dto.sessionId)).memory;
        continue;
      }
      this.lookups.inc({ relevance_level: grade.relevanceLevel, dedup_reason: decision.dedupReason ?? 'none' });
      this.latency.observe(durationMs / 1000);
      this.logger.log({
        msg: 'knowledge lookup',
        sessionId: dto.sessionId,
        relevanceLevel: result.relevanceLevel,
        completenessHint: result.completenessHint,
        dedupReason: result.dedupReason,
        l0MatchCount: result.l0MatchCount,
        l1TopSimilarity: result.l1TopSimilarity,
        returned: results.length,
        confidence: confidence.level,
        durationMs,
        ...(round > 1 ? { claimRounds: round } : {}),
      });
      return result;
    }
  }

  /** A scalar subquery of the tenant's settings row as json, for the caller's statement that opens a session (`LookupOptions.freshSession`). */
  settingsJson(tenantId: TenantId): Expression<StoredSettingsRow | null> {
    return this.settingsRepository.jsonSubquery(tenantId);
  }

  /** What `settingsJson` read, as the caller's statement returned it: the `freshSession` settings of its first lookup. */
  freshSessionSettings(json: unknown): StoredSettingsRow | null {
    return settingsRowFromJson(json);
  }

  /** The caller's profile (the chat passes its routed rule's), else an intent that is itself a profile name, else "search". */
  private resolveProfile(dto: LookupDto): string {
    if (dto.confidenceProfile) return dto.confidenceProfile;
    if (dto.intent && isConfidenceProfile(dto.intent)) return dto.intent;
    return DEFAULT_CONFIDENCE_PROFILE;
  }

  /**
   * docs/spec/retrieval.md §5: one tool_invocation row per lookup, written with the memory claims: on the tenant's session
   * when `sessionId` is one, else on the external session standing for that id (the sessions lib's
   * `SessionToolTrace`), so external agents' lookups are seen by monitoring and coverage too.
   */
  private invocation(dto: LookupDto, r: LookupResult, durationMs: number, filter: MetadataFilter | undefined): TracedInvocation {
    return {
      toolName: LOOKUP_TOOL_NAME,
      arguments: {
        query: dto.query,
        ...(dto.domain ? { domain: dto.domain } : {}),
        topK: dto.topK ?? 5,
        ...(dto.intent ? { intent: dto.intent } : {}),
        ...(filter && !isEmptyFilter(filter) ? { filter } : {}),
      },
      status: 'SUCCESS',
      resultSummary: `${r.results.length} result(s): ${r.results.map((x) => x.filePath).join(', ')}`.slice(0, 2000),
      relevanceLevel: r.relevanceLevel,
      dedupReason: r.dedupReason,
      retrievalDetails: {
        l1_top_similarity: r.l1TopSimilarity,
        top_relevance: r.results[0]?.relevance ?? null,
        relevance_level: r.relevanceLevel,
        completeness_hint: r.completenessHint,
        retrieved_domains: r.retrievedDomainsThisSession,
        dedup_reason: r.dedupReason,
        l0_match_count: r.l0MatchCount,
        domain: r.domain,
        result_file_paths: r.results.map((x) => x.filePath),
        // Where each result came from (docs/retrieval.md "Sections of files"): null fields for JSON documents.
        result_locations: r.results.map((x) => ({ file_name: x.fileName, page: x.page, page_end: x.pageEnd, section: x.section })),
        confidence: { score: r.confidence.score, level: r.confidence.level, reasons: r.confidence.reasons },
      },
      durationMs,
      error: null,
    };
  }
}
