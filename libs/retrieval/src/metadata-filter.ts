/**
 * Metadata filters of a lookup (docs/retrieval.md "Metadata filters"): `{<metadata key>: value | [values]}`,
 * applied in SQL before ranking. A key matches a document whose `metadata[key]` equals the value, or is an
 * array holding it; an array of values matches any of them; keys are all required. Keys are top-level
 * metadata keys, taken literally (a dot is part of the key). Pure: no Nest, no database.
 */

export type FilterValue = string | number | boolean;
export type MetadataFilter = Readonly<Record<string, FilterValue | readonly FilterValue[]>>;

export const MAX_FILTER_KEYS = 20;
export const MAX_FILTER_VALUES = 50;
export const MAX_FILTER_STRING_LENGTH = 500;
export const FILTER_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export interface FilterProblem {
  /** `filter` itself, or `filter.<key>`. */
  field: string;
  message: string;
}

export type FilterCheck = { ok: true; filter: MetadataFilter } | { ok: false; problems: FilterProblem[] };

function valueProblem(value: unknown): string | null {
  if (typeof value === 'string') return value.length <= MAX_FILTER_STRING_LENGTH ? null : `a string value has at most ${MAX_FILTER_STRING_LENGTH} characters`;
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'a number value must be finite';
  if (typeof value === 'boolean') return null;
  return 'a value must be a string, a number, a boolean or a non-empty array of them';
}

/** Checks a request's `filter` (`field` names it in problems); an absent filter (undefined) is the empty one. */
export function checkMetadataFilter(value: unknown, field = 'filter'): FilterCheck {
  if (value === undefined) return { ok: true, filter: {} };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problems: [{ field, message: `${field} must be an object` }] };
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_FILTER_KEYS)
    return { ok: false, problems: [{ field, message: `${field} has at most ${MAX_FILTER_KEYS} keys, got ${entries.length}` }] };
  const problems: FilterProblem[] = [];
  const filter: Record<string, FilterValue | FilterValue[]> = {};
  for (const [key, v] of entries) {
    const keyField = `${field}.${key}`;
    if (!FILTER_KEY_PATTERN.test(key)) {
      problems.push({ field: keyField, message: `a key must match ${FILTER_KEY_PATTERN.source}` });
      continue;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) problems.push({ field: keyField, message: 'an array of values must not be empty' });
      else if (v.length > MAX_FILTER_VALUES) problems.push({ field: keyField, message: `at most ${MAX_FILTER_VALUES} values, got ${v.length}` });
      else {
        const bad = v.map(valueProblem).find((p) => p !== null);
        if (bad) problems.push({ field: keyField, message: bad });
        else filter[key] = [...new Set(v as FilterValue[])];
      }
      continue;
    }
    const bad = valueProblem(v);
    if (bad) problems.push({ field: keyField, message: bad });
    else filter[key] = v as FilterValue;
  }
  return problems.length ? { ok: false, problems } : { ok: true, filter };
}

/** Whether a filter restricts anything. */
export function isEmptyFilter(filter: MetadataFilter | undefined): boolean {
  return !filter || Object.keys(filter).length === 0;
}

/**
 * The containment documents of a filter, one group per key (the document must contain one of each
 * group): `{key: value}` and `{key: [value]}` for every value, so a metadata array holding the value matches
 * too. Keys in sorted order, so equal filters give equal statements.
 */
export function containmentGroups(filter: MetadataFilter): string[][] {
  return Object.keys(filter)
    .sort()
    .map((key) => {
      const v = filter[key];
      const values: readonly FilterValue[] = Array.isArray(v) ? (v as readonly FilterValue[]) : [v as FilterValue];
      return values.flatMap((x) => [JSON.stringify({ [key]: x }), JSON.stringify({ [key]: [x] })]);
    });
}
