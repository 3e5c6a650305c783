import { Injectable } from '@nestjs/common';
import { invalidRequest, pageRequest, type FieldError, type Page, type PageQueryDto, type TenantId } from '@arbiter/common';
import { IntentService } from '@arbiter/intent';
import { AuditLog } from '@arbiter/tenancy';
import {
  checkLabelledArray,
  LABELLED_LIMITS,
  LABELLED_SET_NAME,
  parseLabelledJsonl,
  REVIEW_SET_NAME,
  unknownIntents,
  type ParsedExamples,
} from './labelled-data.js';
import { LabelledSetRepository, type StoredLabelledExample, type StoredLabelledSet } from './labelled-set.repository.js';
import { IntentLearningErrorCode, IntentLearningException, unknownIntentsError } from './intent-learning.exception.js';

/**
 * An upload's body as parsed (`POST /admin/intent/labelled-sets`): a JSON body (`{name, examples}`) or a
 * JSONL text body. Its problems are collected, not thrown, so that one 400 names them with the name's
 * (which may come from `?name=`).
 */
export interface LabelledUploadBody {
  /** The name a JSON body gives. */
  name?: string;
  parsed: ParsedExamples;
  /** Unknown fields of a JSON body, and a name that is no string. */
  errors: FieldError[];
}

/** Parses an upload's body: JSONL text, or a JSON object; anything else is a 400 at once. */
export function parseLabelledUploadBody(body: unknown): LabelledUploadBody {
  if (typeof body === 'string') return { parsed: parseLabelledJsonl(body), errors: [] };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest([{ field: 'body', errors: ['body must be an object {name, examples: [{text, intent}]} (or JSONL as application/x-ndjson)'] }]);
  }
  const errors: FieldError[] = [];
  const { name, examples, ...rest } = body as Record<string, unknown>;
  for (const key of Object.keys(rest)) errors.push({ field: key.slice(0, 100), errors: [`property ${key.slice(0, 100)} should not exist`] });
  if (name !== undefined && typeof name !== 'string') errors.push({ field: 'name', errors: ['name must be a string'] });
  return { ...(typeof name === 'string' ? { name } : {}), parsed: checkLabelledArray(examples), errors };
}

/** Labelled sets: uploads (versioned by name), the review set, listing, examples, deletion. */
@Injectable()
export class LabelledSetsService {
  constructor(
    private readonly sets: LabelledSetRepository,
    private readonly intents: IntentService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Validates every example (400 naming each bad line / position) and every label's intent (400 listing the
   * unknown ones) before anything is written, then stores the upload as the next version of its name.
   */
  async upload(tenantId: TenantId, body: LabelledUploadBody, queryName?: string): Promise<StoredLabelledSet> {
    const { parsed } = body;
    const errors: FieldError[] = [...body.errors];
    let name: string | undefined = queryName;
    if (body.name !== undefined) {
      if (name !== undefined && name !== body.name) errors.push({ field: 'name', errors: ['name is given twice (body and query) with different values'] });
      else name = body.name;
    }
    if (name === undefined) errors.unshift({ field: 'name', errors: ['name is required (in the JSON body, or ?name= for JSONL)'] });
    else if (!LABELLED_SET_NAME.test(name))
      errors.unshift({ field: 'name', errors: [`name must be 1-${LABELLED_LIMITS.nameLength} letters, digits, "_", "-" or "."`] });
    else if (name === REVIEW_SET_NAME)
      errors.unshift({ field: 'name', errors: [`name "${REVIEW_SET_NAME}" is reserved for the labels put on logged decisions`] });
    errors.push(...parsed.errors);
    if (parsed.moreErrors > 0) errors.push({ field: 'body', errors: [`and ${parsed.moreErrors} more invalid fields`] });
    if (errors.length) throw invalidRequest(errors);
    const unknown = unknownIntents(parsed.examples, await this.intents.knownIntents(tenantId));
    if (unknown.length) throw unknownIntentsError(unknown, 'intent');
    return this.sets.createVersion(tenantId, name!, parsed.examples, (em, set) =>
      this.audit.record(em, tenantId, {
        action: 'create',
        resourceType: 'labelled_set',
        resourceId: set.id,
        label: `${name!} v${set.version}`,
        summary: { name: name!, version: set.version, kind: 'upload', examples: parsed.examples.length },
      }),
    );
  }

  list(tenantId: TenantId, query: PageQueryDto & { name?: string }): Promise<Page<StoredLabelledSet>> {
    return this.sets.list(tenantId, query.name !== undefined ? { name: query.name } : {}, pageRequest(query));
  }

  async get(tenantId: TenantId, id: string, query: PageQueryDto): Promise<StoredLabelledSet & { examples: Page<StoredLabelledExample> }> {
    const page = pageRequest(query);
    const set = await this.sets.get(tenantId, id);
    if (set === null) throw new IntentLearningException(IntentLearningErrorCode.LABELLED_SET_NOT_FOUND);
    return { ...set, examples: await this.sets.examples(tenantId, id, page) };
  }

  async delete(tenantId: TenantId, id: string): Promise<void> {
    const deleted = await this.sets.delete(tenantId, id, (em, set) =>
      this.audit.record(em, tenantId, {
        action: 'delete',
        resourceType: 'labelled_set',
        resourceId: id,
        label: `${set.name} v${set.version}`,
        summary: { name: set.name, version: set.version },
      }),
    );
    if (!deleted) throw new IntentLearningException(IntentLearningErrorCode.LABELLED_SET_NOT_FOUND);
  }
}
