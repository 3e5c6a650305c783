import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';
import { Matches, type ValidationOptions } from 'class-validator';

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

/** The 400 every input check answers with: the message and `details.fields` name each offending field. */
export function invalidRequest(details: FieldError[]): BadRequestException {
  const fields = [...new Set(details.map((d) => d.field))];
  return new BadRequestException({
    message: `Invalid request: ${details.map((d) => `${d.field}: ${d.errors.join('; ')}`).join(' | ')}`,
    details: { fields, errors: details },
  });
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
