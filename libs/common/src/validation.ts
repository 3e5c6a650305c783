import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { Matches, type ValidationOptions } from 'class-validator';
import { DomainException } from './domain.exception.js';

export interface FieldError {
  field: string;
  errors: string[];
}

/** Flattens nested class-validator errors into `[{field: 'a.b[0].c', errors}]`. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const isIndex = /^\d+$/.test(error.property);
    const field = parent ? (isIndex ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    if (error.constraints) out.push({ field, errors: Object.values(error.constraints) });
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/** A required text that must hold something besides whitespace (`"   "` → 400). */
export function NotBlank(options: ValidationOptions = {}): PropertyDecorator {
  return Matches(/\S/, { message: '$property must not be blank', ...options });
}

/** The 400 every input check answers with (code `VALIDATION_FAILED`): the message and `details.fields` name each offending field. */
export class InvalidRequestException extends DomainException<'VALIDATION_FAILED'> {
  declare readonly details: { fields: string[]; errors: FieldError[] };

  constructor(errors: FieldError[]) {
    const fields = [...new Set(errors.map((d) => d.field))];
    super('VALIDATION_FAILED', 400, `Invalid request: ${errors.map((d) => `${d.field}: ${d.errors.join('; ')}`).join(' | ')}`, { fields, errors });
  }
}

/** The 400 of a failed input check, naming every offending field ({@link InvalidRequestException}). */
export function invalidRequest(details: FieldError[]): InvalidRequestException {
  return new InvalidRequestException(details);
}

/** Whitelist + forbid unknown fields + transform; the 400 names every offending field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => invalidRequest(flattenValidationErrors(errors)),
  });
}
