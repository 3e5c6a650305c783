import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { EnvironmentVariables } from './environment.js';

export class ConfigValidationError extends Error {
  constructor(readonly problems: { variable: string; errors: string[] }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p.variable}: ${p.errors.join('; ')}`).join('\n')}`);
    this.name = 'ConfigValidationError';
  }
}

/** Parses and validates the environment; throws one error naming every bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): EnvironmentVariables {
  const known = new Set(Object.keys(new EnvironmentVariables()).concat(OPTIONAL_KEYS));
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (known.has(key) && value !== undefined) picked[key] = value;
  const env = plainToInstance(EnvironmentVariables, picked, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length) {
    throw new ConfigValidationError(errors.map((e) => ({ variable: e.property, errors: Object.values(e.constraints ?? {}) })));
  }
  return env;
}

/** Optional variables have no default, so they are not own keys of a fresh instance. */
export const OPTIONAL_KEYS = [
  'DB_HEALTH_BUSY_LIMIT_MS',
  'DATABASE_URL',
  'MIGRATIONS_DIR',
  'CONSOLE_DIR',
  'ADMIN_TOKEN',
  'LLM_BASE_URL',
  'LLM_API_KEY',
  'EMBEDDING_BASE_URL',
  'EMBEDDING_API_KEY',
  'METRICS_TOKEN',
  'METRICS_PORT',
  'JOBS_SCHEDULES',
  'WEBHOOK_ALLOWED_HOSTS',
  'COVERAGE_BACKFILL_BATCH_SIZE',
] as const;
