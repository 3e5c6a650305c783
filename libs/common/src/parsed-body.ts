import { Body, type PipeTransform } from '@nestjs/common';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validate } from 'class-validator';
import { TimeSlice } from './time-slice.js';
import { flattenValidationErrors, type FieldError } from './validation.js';

/**
 * A body checked by a parser of its own instead of a DTO class and the validation pipe
 * (docs/CONVENTIONS.md "Validation"): bodies too large for class-validator (5,000–50,000 examples) or whose
 * every problem is named in one 400. The handler receives the parser's typed result; the parser throws the 400.
 */
export function ParsedBody<T>(parse: (body: unknown) => T | Promise<T>): ParameterDecorator {
  const pipe: PipeTransform<unknown, T | Promise<T>> = { transform: (body) => parse(body) };
  return Body(pipe);
}

/** One item of a bulk body after its DTO's validation: the typed item, or the fields it was refused for. */
export type BulkItem<T> = { index: number; raw: unknown; value: T; errors: null } | { index: number; raw: unknown; value: null; errors: FieldError[] };

export interface BulkBodyOptions<T extends object> {
  /** The DTO each item is validated as (whitelist, unknown fields refused — as the validation pipe does). */
  dto: ClassConstructor<T>;
  /** The property holding the items in an object body (`{documents: [...]}`). */
  key: string;
  /** The client error for a body that is no list of items (`detail`: which NDJSON line is no JSON). */
  invalid: (detail?: string) => Error;
  /** Throws the client error for a count of items it refuses; runs before any item is validated. */
  checkCount?: (count: number) => void;
}

/**
 * A bulk body (docs/http-edge.md "Bodies"): a JSON array, `{<key>: [...]}`, or NDJSON (one item a line),
 * each item validated on its own so one bad item fails alone with its fields named (the per-item results).
 */
export function BulkBody<T extends object>(options: BulkBodyOptions<T>): ParameterDecorator {
  const pipe: PipeTransform<unknown, Promise<BulkItem<T>[]>> = {
    transform: (body) => {
      const items = bulkBodyItems(body, options.key, options.invalid);
      options.checkCount?.(items.length);
      return validateBulkItems(options.dto, items);
    },
  };
  return Body(pipe);
}

/** The items of a bulk body; throws `invalid` for anything else. */
export function bulkBodyItems(body: unknown, key: string, invalid: (detail?: string) => Error): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object') {
    const items: unknown = (body as Record<string, unknown>)[key];
    if (Array.isArray(items)) return items;
  }
  if (typeof body === 'string') {
    const items: unknown[] = [];
    for (const [i, line] of body.split(/\r?\n/).entries()) {
      if (!line.trim()) continue;
      try {
        items.push(JSON.parse(line));
      } catch {
        throw invalid(`line ${i + 1} is not valid JSON`);
      }
    }
    return items;
  }
  throw invalid();
}

/** Validates each item as `dto`, yielding to the event loop between items (a body may hold thousands). */
export async function validateBulkItems<T extends object>(dto: ClassConstructor<T>, items: readonly unknown[]): Promise<BulkItem<T>[]> {
  const out: BulkItem<T>[] = [];
  const slice = new TimeSlice();
  for (const [index, raw] of items.entries()) {
    await slice.pause();
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      out.push({ index, raw, value: null, errors: [{ field: '', errors: ['item must be an object'] }] });
      continue;
    }
    const value = plainToInstance(dto, raw);
    const errors = await validate(value, { whitelist: true, forbidNonWhitelisted: true });
    out.push(errors.length ? { index, raw, value: null, errors: flattenValidationErrors(errors) } : { index, raw, value, errors: null });
  }
  return out;
}
