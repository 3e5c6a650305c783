import { Injectable } from '@nestjs/common';
import { invalidRequest, pageRequest, type FieldError, type Page, type PageQueryDto, type TenantId } from '@arbiter/common';
import { DEFAULT_FIT_TARGETS, fitDataProblem, IntentService, type FitTargets } from '@arbiter/intent';
import { JobsService } from '@arbiter/jobs';
import { AuditLog } from '@arbiter/tenancy';
import { INTENT_FIT_JOB } from './intent-fit.job.js';
import { IntentFitRepository, type StoredIntentFit } from './intent-fit.repository.js';
import { unknownIntents } from './labelled-data.js';
import { LabelledSetRepository } from './labelled-set.repository.js';
import { IntentLearningErrorCode, IntentLearningException, unknownIntentsError } from './intent-learning.exception.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TARGET_KEYS = ['minOutOfScopeRecall', 'maxClarifyRate'] as const;

/** The body of `POST /admin/intent-config/fit`, once checked. */
export interface FitRequest {
  labelledSetId: string;
  targets: FitTargets;
}

/** The body of `POST /admin/intent-config/fit`, checked by hand so every problem is named at once. */
export function parseFitRequest(body: unknown): FitRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest([{ field: 'body', errors: ['body must be an object {labelledSetId, targets?}'] }]);
  }
  const errors: FieldError[] = [];
  const { labelledSetId, targets, ...rest } = body as Record<string, unknown>;
  for (const key of Object.keys(rest)) errors.push({ field: key.slice(0, 100), errors: [`property ${key.slice(0, 100)} should not exist`] });
  if (typeof labelledSetId !== 'string' || !UUID.test(labelledSetId)) errors.push({ field: 'labelledSetId', errors: ['labelledSetId must be a UUID'] });
  const chosen: FitTargets = { ...DEFAULT_FIT_TARGETS };
  if (targets !== undefined) {
    if (typeof targets !== 'object' || targets === null || Array.isArray(targets)) {
      errors.push({ field: 'targets', errors: ['targets must be an object {minOutOfScopeRecall?, maxClarifyRate?}'] });
    } else {
      for (const [key, value] of Object.entries(targets)) {
        if (!(TARGET_KEYS as readonly string[]).includes(key)) {
          errors.push({ field: `targets.${key.slice(0, 100)}`, errors: [`property targets.${key.slice(0, 100)} should not exist`] });
        } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
          errors.push({ field: `targets.${key}`, errors: [`targets.${key} must be a number within [0, 1]`] });
        } else {
          chosen[key as (typeof TARGET_KEYS)[number]] = value;
        }
      }
    }
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return { labelledSetId: labelledSetId as string, targets: chosen };
}

/** Fits of the routing thresholds on labelled sets (docs/learning.md "Fit"): requested here, computed by a job. */
@Injectable()
export class IntentFitService {
  constructor(
    private readonly fits: IntentFitRepository,
    private readonly sets: LabelledSetRepository,
    private readonly intents: IntentService,
    private readonly jobs: JobsService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Checks the request and the labelled set (exists, ≥ 2 examples per intent, ≥ 1 out of scope, no unknown
   * intents) before anything is written, then records the fit and enqueues its job.
   */
  async request(tenantId: TenantId, { labelledSetId, targets }: FitRequest): Promise<StoredIntentFit> {
    const set = await this.sets.get(tenantId, labelledSetId);
    if (set === null) throw new IntentLearningException(IntentLearningErrorCode.LABELLED_SET_NOT_FOUND);
    const examples = await this.fits.examples(tenantId, set.id);
    const problem = fitDataProblem(examples.map((e) => e.intent));
    if (problem !== null) throw new IntentLearningException(IntentLearningErrorCode.FIT_DATA_INSUFFICIENT, problem, { fields: ['labelledSetId'] });
    const unknown = unknownIntents(examples, await this.intents.knownIntents(tenantId));
    if (unknown.length > 0) throw unknownIntentsError(unknown, 'labelledSetId');
    // The fit's request is recorded; applying its proposal is a recorded `PUT /admin/intent-config` (an `intent_config` entry).
    const id = await this.fits.create(tenantId, set, { ...targets }, (em, fitId) =>
      this.audit.record(em, tenantId, {
        action: 'request',
        resourceType: 'intent_fit',
        resourceId: fitId,
        label: `${set.name} v${set.version}`,
        summary: { labelledSetId: set.id, examples: examples.length, targets: { ...targets } },
      }),
    );
    const run = await this.jobs.enqueue(tenantId, INTENT_FIT_JOB, { fitId: id });
    await this.fits.attachJob(tenantId, id, run?.id ?? null);
    return (await this.fits.get(tenantId, id))!;
  }

  async get(tenantId: TenantId, id: string): Promise<StoredIntentFit> {
    const fit = await this.fits.get(tenantId, id);
    if (fit === null) throw new IntentLearningException(IntentLearningErrorCode.FIT_NOT_FOUND);
    return fit;
  }

  list(tenantId: TenantId, query: PageQueryDto): Promise<Page<StoredIntentFit>> {
    return this.fits.list(tenantId, pageRequest(query));
  }
}
