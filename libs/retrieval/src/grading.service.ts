import { Injectable, Logger } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import type { FitGradingDto } from './dto/knowledge.dto.js';
import { HybridSearchService } from './hybrid-search.service.js';
import { AuditLog } from '@arbiter/tenancy';
import { KnowledgeRepository } from './knowledge.repository.js';
import { LexicalRepository } from './lexical.repository.js';
import { ANSWERABILITY_FEATURE_NAMES } from './lexical/answerability.js';
import { type Calibration, FEATURE_NAMES, type StoredGrading } from './lexical/calibration.js';
import { DEFAULT_GRADE_TARGETS, evaluateGrading, fitCalibration, type GradingMetrics, type LabelledLookup } from './lexical/calibration-fit.js';
import { answersLabel, labelsLocation } from './lexical/label-match.js';
import { RetrievalErrorCode, RetrievalException } from './retrieval.exception.js';
import { RetrievalSettingsRepository } from './retrieval-settings.repository.js';
import { RetrievalSettingsService } from './retrieval-settings.service.js';

/** Minimums of a fit request (docs/retrieval.md "Fitting the grade"). */
export const MIN_FIT_PAIRS = 20;
export const MIN_FIT_ANSWERABLE = 10;
export const MIN_FIT_UNANSWERABLE = 5;

export interface GradingView {
  source: 'default' | 'fitted';
  embedder: string;
  features: string[];
  answerabilityFeatures: string[];
  calibration: Calibration;
  fittedAt: string | null;
  metrics: GradingMetrics | null;
}

export interface GradingFitResult {
  applied: boolean;
  grading: GradingView;
  before: GradingMetrics;
  after: GradingMetrics;
  samples: number;
}

/**
 * Per-tenant grade calibration: fit from labelled questions (each asked through the same hybrid
 * search a lookup uses, without action memory or any record), view, reset.
 */
@Injectable()
export class GradingService {
  private readonly logger = new Logger('Grading');

  constructor(
    private readonly search: HybridSearchService,
    private readonly lexical: LexicalRepository,
    private readonly knowledge: KnowledgeRepository,
    private readonly settings: RetrievalSettingsService,
    private readonly settingsRepository: RetrievalSettingsRepository,
    private readonly audit: AuditLog,
  ) {}

  async view(tenantId: TenantId): Promise<GradingView> {
    const effective = await this.settings.get(tenantId);
    const stored = effective.grading as Partial<StoredGrading>;
    const fitted = effective.calibrationSource === 'fitted';
    return {
      source: effective.calibrationSource,
      embedder: this.search.space.model,
      features: [...FEATURE_NAMES],
      answerabilityFeatures: [...ANSWERABILITY_FEATURE_NAMES],
      calibration: effective.calibration,
      fittedAt: fitted ? (stored.fittedAt ?? null) : null,
      metrics: fitted ? ((stored.metrics as GradingMetrics | undefined) ?? null) : null,
    };
  }

  async reset(tenantId: TenantId): Promise<GradingView> {
    const stored = await this.settingsRepository.get(tenantId);
    const had = stored.grading as Partial<StoredGrading>;
    await this.settingsRepository.put(tenantId, { ...stored, grading: {} }, (tx) =>
      this.audit.record(tx, tenantId, {
        action: 'reset',
        resourceType: 'retrieval_grading',
        label: 'grade calibration',
        summary: { before: { fittedAt: had.fittedAt ?? null, embedder: had.embedder ?? null }, after: { source: 'default' } },
      }),
    );
    return this.view(tenantId);
  }

  async fit(tenantId: TenantId, dto: FitGradingDto): Promise<GradingFitResult> {
    const answerable = dto.pairs.filter((p) => p.filePath !== null && p.filePath !== undefined);
    if (dto.pairs.length < MIN_FIT_PAIRS || answerable.length < MIN_FIT_ANSWERABLE || dto.pairs.length - answerable.length < MIN_FIT_UNANSWERABLE) {
      throw new RetrievalException(
        RetrievalErrorCode.TOO_FEW_LABELLED_PAIRS,
        `at least ${MIN_FIT_PAIRS} pairs, ${MIN_FIT_ANSWERABLE} with a filePath and ${MIN_FIT_UNANSWERABLE} with filePath null are needed; got ${dto.pairs.length}, ${answerable.length} and ${dto.pairs.length - answerable.length}`,
        { fields: ['pairs'], minimum: { pairs: MIN_FIT_PAIRS, answerable: MIN_FIT_ANSWERABLE, unanswerable: MIN_FIT_UNANSWERABLE } },
      );
    }
    const paths = [...new Set(answerable.map((p) => p.filePath as string))];
    const labelled = await this.knowledge.labelTargets(tenantId, paths);
    const known = new Set(labelled.map((t) => t.filePath));
    const unknown = paths.filter((p) => !known.has(p));
    if (unknown.length) {
      throw new RetrievalException(
        RetrievalErrorCode.UNKNOWN_LABEL_PATHS,
        unknown.slice(0, 20).join(', ') + (unknown.length > 20 ? ` (+${unknown.length - 20} more)` : ''),
        { fields: ['pairs'], unknownFilePaths: unknown },
      );
    }
    checkLabelLocations(dto, new Set(labelled.filter((t) => t.located).map((t) => t.filePath)));
    const settings = await this.settings.get(tenantId);
    const lookups: (LabelledLookup & { answerable: boolean })[] = [];
    for (const pair of dto.pairs) {
      const query = pair.query.trim();
      const vector = await this.search.embed(query);
      const translatedVector = await this.search.embedTranslation(query);
      const found = await this.lexical.transaction((tx) =>
        this.search.search(tenantId, { query, vector, translatedVector, collectOverlaps: true }, settings, tx),
      );
      lookups.push({
        answerable: pair.filePath !== null && pair.filePath !== undefined,
        candidates: found.candidates.map((c) => ({
          evidence: c.evidence,
          agreement: c.agreement,
          documentId: c.documentId,
          right:
            pair.filePath !== null && pair.filePath !== undefined && answersLabel(c, { filePath: pair.filePath, pages: pair.pages, section: pair.section }),
        })),
      });
    }
    const targets = { ...DEFAULT_GRADE_TARGETS, ...(dto.targets ?? {}) };
    const report = fitCalibration(lookups, targets);
    const before = evaluateGrading(lookups, settings.calibration);
    const after = evaluateGrading(lookups, report.calibration);
    const fittedAt = new Date().toISOString();
    const grading: GradingView = {
      source: 'fitted',
      embedder: this.search.space.model,
      features: [...FEATURE_NAMES],
      answerabilityFeatures: [...ANSWERABILITY_FEATURE_NAMES],
      calibration: report.calibration,
      fittedAt,
      metrics: after,
    };
    if (!dto.dryRun) {
      const stored = await this.settingsRepository.get(tenantId);
      const value: StoredGrading = {
        embedder: grading.embedder,
        calibration: report.calibration,
        fittedAt,
        metrics: after,
        targets,
        samples: report.samples,
        pairs: dto.pairs.length,
      };
      const had = stored.grading as Partial<StoredGrading>;
      await this.settingsRepository.put(tenantId, { ...stored, grading: value }, (tx) =>
        this.audit.record(tx, tenantId, {
          action: 'apply',
          resourceType: 'retrieval_grading',
          resourceId: fittedAt,
          label: 'grade calibration',
          summary: { embedder: value.embedder, pairs: dto.pairs.length, samples: report.samples, replaced: had.fittedAt ?? null, before, after },
        }),
      );
      this.logger.log({ msg: 'grade calibration fitted', tenantId, pairs: dto.pairs.length, before, after });
    }
    return { applied: !dto.dryRun, grading: dto.dryRun ? grading : await this.view(tenantId), before, after, samples: report.samples };
  }
}

/**
 * Labels say where the answer is when it is in a document of many sections (docs/retrieval.md "Fitting the grade"):
 * labelled by its path alone, every section of a manual would count as the right answer to every question about it.
 * A location without a document is refused too. Checked before any lookup (`located`: the
 * labelled documents made from files with sections or pages), so a refused fit reads and writes nothing.
 */
function checkLabelLocations(dto: FitGradingDto, located: ReadonlySet<string>): void {
  const withoutDocument = dto.pairs.flatMap((p, i) =>
    (p.filePath === null || p.filePath === undefined) && labelsLocation(p) ? [`pairs[${i}].${p.pages?.length ? 'pages' : 'section'}`] : [],
  );
  const unlocated = dto.pairs.flatMap((p, i) => (p.filePath !== null && p.filePath !== undefined && !labelsLocation(p) ? [{ i, filePath: p.filePath }] : []));
  const needLocation = unlocated.filter((u) => located.has(u.filePath));
  if (!withoutDocument.length && !needLocation.length) return;
  const fields = [...withoutDocument, ...needLocation.map((u) => `pairs[${u.i}]`)];
  const paths = [...new Set(needLocation.map((u) => u.filePath))];
  throw new RetrievalException(
    RetrievalErrorCode.INVALID_LABEL_LOCATION,
    [
      withoutDocument.length ? `pages or section given without a filePath: ${withoutDocument.slice(0, 10).join(', ')}` : '',
      paths.length ? `label pages or section for the pairs of ${paths.slice(0, 10).join(', ')} (${needLocation.length} pairs)` : '',
    ]
      .filter(Boolean)
      .join('; '),
    { fields, filePaths: paths },
  );
}
