import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';

export const MAX_ALLOWED_ORIGINS = 50;

/** `https://host[:port]` or `http://…` exactly as a browser sends it in `Origin`: no path, query, user or trailing slash. */
export function isExactOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

@ValidatorConstraint({ name: 'exactOrigin' })
export class ExactOrigin implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isExactOrigin(value);
  }

  defaultMessage(): string {
    return 'each value in allowedOrigins must be an exact origin: scheme://host[:port], lower-case, no path or trailing slash';
  }
}
