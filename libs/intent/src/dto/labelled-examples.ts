import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { type FieldError, flattenValidationErrors, invalidRequest } from '@arbiter/common';
import { EvaluateOptionsDto } from './intent-rule.dto.js';
import { INTENT_LIMITS } from '../intent.types.js';

export interface LabelledExampleInput {
  text: string;
  intent: string | null;
}

const KNOWN = new Set(['text', 'intent']);
const NOT_BLANK = /\S/;

/**
 * Checks labelled examples (`{text, intent | null}`) with the messages the validation pipe would give,
 * naming `examples[i].field`. Hand-written because class-validator's nested validation of 5,000
 * examples holds the event loop for about a second (README, Faults and outages); this takes a few ms.
 */
export function checkLabelledExamples(items: readonly unknown[], field = 'examples'): { examples: LabelledExampleInput[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const examples: LabelledExampleInput[] = [];
  items.forEach((item, i) => {
    const at = `${field}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push({ field: at, errors: ['each example must be an object {text, intent}'] });
      return;
    }
    const o = item as Record<string, unknown>;
    for (const key of Object.keys(o)) if (!KNOWN.has(key)) errors.push({ field: `${at}.${key}`, errors: [`property ${key} should not exist`] });
    const text = o.text;
    if (typeof text !== 'string') errors.push({ field: `${at}.text`, errors: ['text must be a string'] });
    else if (!NOT_BLANK.test(text)) errors.push({ field: `${at}.text`, errors: ['text must not be blank'] });
    else if (text.length > INTENT_LIMITS.messageLength)
      errors.push({ field: `${at}.text`, errors: [`text must be shorter than or equal to ${INTENT_LIMITS.messageLength} characters`] });
    const intent = o.intent;
    if (intent !== null && typeof intent !== 'string') errors.push({ field: `${at}.intent`, errors: ['intent must be a string or null'] });
    else if (typeof intent === 'string' && intent.length > INTENT_LIMITS.intentLength)
      errors.push({ field: `${at}.intent`, errors: [`intent must be shorter than or equal to ${INTENT_LIMITS.intentLength} characters`] });
    examples.push({ text: text as string, intent: intent as string | null });
  });
  return { examples, errors };
}

export interface EvaluateRequest {
  examples: LabelledExampleInput[];
  config?: Record<string, unknown>;
  topConfusions?: number;
}

/**
 * The body of POST /admin/intent-rules/evaluate, checked without the global validation pipe: its
 * class-transformer walk over 5,000 nested examples alone held the event loop for ~0.5 s. Options go
 * through class-validator (a handful of fields); the examples through {@link checkLabelledExamples}.
 * Throws the usual 400 naming every offending field.
 */
export function parseEvaluateBody(body: unknown): EvaluateRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidRequest([{ field: '', errors: ['body must be an object {examples, config?, topConfusions?}'] }]);
  const { examples: rawExamples, ...options } = body as Record<string, unknown>;
  const dto = plainToInstance(EvaluateOptionsDto, options);
  const errors: FieldError[] = flattenValidationErrors(
    validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } }),
  );
  let examples: LabelledExampleInput[] = [];
  if (!Array.isArray(rawExamples)) errors.push({ field: 'examples', errors: ['examples must be an array'] });
  else if (rawExamples.length < 1) errors.push({ field: 'examples', errors: ['examples must contain at least 1 elements'] });
  else if (rawExamples.length > INTENT_LIMITS.evaluationExamples)
    errors.push({ field: 'examples', errors: [`examples must contain no more than ${INTENT_LIMITS.evaluationExamples} elements`] });
  else {
    const checked = checkLabelledExamples(rawExamples);
    errors.push(...checked.errors);
    examples = checked.examples;
  }
  if (errors.length) throw invalidRequest(errors);
  return {
    examples,
    ...(dto.config !== undefined ? { config: dto.config } : {}),
    ...(dto.topConfusions !== undefined ? { topConfusions: dto.topConfusions } : {}),
  };
}
