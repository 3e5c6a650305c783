import { Injectable } from '@nestjs/common';
import { assertNever, invalidRequest, type FieldError, type TenantId } from '@arbiter/common';
import { IntentService } from '@arbiter/intent';
import { AuditLog } from '@arbiter/tenancy';
import { LABELLED_LIMITS, LABELLED_SET_NAME, REVIEW_SET_NAME } from './labelled-data.js';
import { LabelledSetRepository, type StoredLabelledSet } from './labelled-set.repository.js';
import { LABEL_SOURCES, mergeLabelSources, type LabelSource, type SnapshotMerge } from './labelled-snapshot.js';
import { LabelledSourcesRepository } from './labelled-sources.repository.js';

export interface SnapshotResult extends Omit<SnapshotMerge, 'examples'> {
  set: StoredLabelledSet;
}

/** The body of `POST /admin/intent/labelled-sets/snapshot`, once checked. */
export interface SnapshotRequest {
  name: string;
  sources: LabelSource[];
}

/** The body of `POST /admin/intent/labelled-sets/snapshot`. */
export function parseSnapshotRequest(body: unknown): SnapshotRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest([{ field: 'body', errors: ['body must be an object {name, sources}'] }]);
  }
  const errors: FieldError[] = [];
  const { name, sources, ...rest } = body as Record<string, unknown>;
  for (const key of Object.keys(rest)) errors.push({ field: key.slice(0, 100), errors: [`property ${key.slice(0, 100)} should not exist`] });
  if (typeof name !== 'string' || !LABELLED_SET_NAME.test(name)) {
    errors.push({ field: 'name', errors: [`name must be 1-${LABELLED_LIMITS.nameLength} letters, digits, "_", "-" or "."`] });
  } else if (name === REVIEW_SET_NAME) {
    errors.push({ field: 'name', errors: [`name "${REVIEW_SET_NAME}" is reserved for the labels put on logged decisions`] });
  }
  if (!Array.isArray(sources) || sources.length === 0 || sources.some((s) => !(LABEL_SOURCES as readonly unknown[]).includes(s))) {
    errors.push({ field: 'sources', errors: [`sources must be a non-empty array of ${LABEL_SOURCES.join(', ')}`] });
  }
  if (errors.length > 0) throw invalidRequest(errors);
  // the given order is the precedence; repeated names count once
  return { name: name as string, sources: [...new Set(sources as LabelSource[])] };
}

/** Turns review labels, bad-case labels and verified cases into a versioned labelled set (docs/learning.md). */
@Injectable()
export class LabelledSnapshotService {
  constructor(
    private readonly sources: LabelledSourcesRepository,
    private readonly sets: LabelledSetRepository,
    private readonly intents: IntentService,
    private readonly audit: AuditLog,
  ) {}

  async snapshot(tenantId: TenantId, { name, sources }: SnapshotRequest): Promise<SnapshotResult> {
    const limit = LABELLED_LIMITS.examples;
    const read = async (source: LabelSource) => {
      switch (source) {
        case 'review':
          return this.sources.review(tenantId, limit);
        case 'bad_cases':
          return this.sources.badCases(tenantId, limit);
        case 'case_library':
          return this.sources.caseLibrary(tenantId, limit);
        default:
          return assertNever(source);
      }
    };
    const labelled = await Promise.all(sources.map(async (source) => ({ source, labels: await read(source) })));
    const merged = mergeLabelSources(labelled, await this.intents.knownIntents(tenantId), limit);
    if (merged.examples.length === 0) {
      throw invalidRequest([{ field: 'sources', errors: [`the chosen sources hold no labelled message with a known intent (${sources.join(', ')})`] }]);
    }
    const { examples, ...report } = merged;
    const set = await this.sets.createVersion(tenantId, name, examples, (em, created) =>
      this.audit.record(em, tenantId, {
        action: 'create',
        resourceType: 'labelled_set',
        resourceId: created.id,
        label: `${name} v${created.version}`,
        summary: { name, version: created.version, kind: 'snapshot', sources, examples: examples.length },
      }),
    );
    return { set, ...report };
  }
}
