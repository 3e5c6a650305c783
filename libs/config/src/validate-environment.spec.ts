import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { AppConfig, findProjectRoot } from './app-config.js';
import { EnvironmentVariables } from './environment.js';
import { ConfigValidationError, OPTIONAL_KEYS, validateEnvironment } from './validate-environment.js';

describe('validateEnvironment', () => {
  it('applies every default on an empty environment', () => {
    const config = new AppConfig(validateEnvironment({}));
    expect(config.http).toEqual({
      host: '0.0.0.0',
      port: 3000,
      bodyLimitBytes: 1_048_576,
      bodyTimeoutMs: 30_000,
      shutdownGraceMs: 10_000,
      swaggerEnabled: true,
      corsOrigins: [],
    });
    expect(config.uploads).toEqual({
      maxFileBytes: 52_428_800,
      maxRequestBytes: 209_715_200,
      maxFiles: 100,
      maxPdfPages: 2000,
      parseTimeoutMs: 120_000,
      parseThreads: 1,
    });
    expect(config.ocr).toEqual({ mode: 'auto', languages: ['eng', 'chi_sim'], concurrency: 1 });
    expect(new AppConfig(validateEnvironment({ OCR_ENABLED: 'off', OCR_LANGUAGES: 'deu' })).ocr).toMatchObject({ mode: 'off', languages: ['deu'] });
    expect(() => validateEnvironment({ OCR_ENABLED: 'yes' })).toThrow(/OCR_ENABLED/);
    expect(() => validateEnvironment({ OCR_LANGUAGES: 'eng, chi_sim' })).toThrow(/OCR_LANGUAGES/);
    expect(config.consoleDir).toBe(path.join(findProjectRoot(), 'dist', 'console'));
    expect(new AppConfig(validateEnvironment({ CONSOLE_DIR: 'elsewhere/console' })).consoleDir).toBe(path.resolve('elsewhere/console'));
    expect(config.database.embedded).toBe(true);
    expect(config.llm).toMatchObject({ provider: 'none', enabled: false });
    expect(config.embedding).toMatchObject({ provider: 'local', dimension: 384 });
    expect(config.jobs).toMatchObject({ enabled: true, concurrency: 4 });
    // A backfill page is one turn holding the embedded database's one connection: smaller there.
    expect(config.coverage.backfillBatchSize).toBe(200);
    expect(new AppConfig(validateEnvironment({ DATABASE_URL: 'postgres://u@h/db' })).coverage.backfillBatchSize).toBe(2000);
    expect(new AppConfig(validateEnvironment({ COVERAGE_BACKFILL_BATCH_SIZE: '500' })).coverage.backfillBatchSize).toBe(500);
  });

  it('parses numbers and booleans from strings', () => {
    const config = new AppConfig(validateEnvironment({ PORT: '8080', JOBS_ENABLED: 'false', SEED_DEMO: '0', DATABASE_URL: 'postgres://u@h/db' }));
    expect(config.http.port).toBe(8080);
    expect(config.jobs.enabled).toBe(false);
    expect(config.auth.seedDemo).toBe(false);
    expect(config.database).toMatchObject({ embedded: false, url: 'postgres://u@h/db', preparedStatements: true });
    expect(new AppConfig(validateEnvironment({ DB_PREPARED_STATEMENTS: 'false' })).database.preparedStatements).toBe(false);
  });

  it('treats empty strings of optional variables as unset', () => {
    expect(validateEnvironment({ DATABASE_URL: '', ADMIN_TOKEN: '' }).DATABASE_URL).toBeUndefined();
  });

  it('trims ADMIN_TOKEN (a pasted " token ") and checks its length after trimming', () => {
    expect(validateEnvironment({ ADMIN_TOKEN: '  0123456789abcdef-token \t' }).ADMIN_TOKEN).toBe('0123456789abcdef-token');
    expect(validateEnvironment({ ADMIN_TOKEN: '   ' }).ADMIN_TOKEN).toBeUndefined();
    expect(() => validateEnvironment({ ADMIN_TOKEN: '  short-token     ' })).toThrow(/ADMIN_TOKEN/);
  });

  it('reads CORS_ORIGINS as a list of origins and refuses anything else', () => {
    expect(new AppConfig(validateEnvironment({ CORS_ORIGINS: ' https://a.example.com , http://localhost:5173,' })).http.corsOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:5173',
    ]);
    for (const bad of ['a.example.com', 'https://a.example.com/path', 'ftp://a.example.com', 'https://a.example.com?x=1']) {
      expect(() => validateEnvironment({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });

  it('reads the rate limits (0 = unlimited by default) and refuses a bad TRUST_PROXY or a negative limit', () => {
    const config = new AppConfig(validateEnvironment({ RATE_LIMIT_CHAT_PER_KEY: '60', RATE_LIMIT_ROUTE_PER_TENANT: '6000' }));
    expect(config.rateLimits.perKey).toEqual({ chat: 60, route: 0, lookup: 0, ingest: 0, admin: 0 });
    expect(config.rateLimits.perTenant.route).toBe(6000);
    expect(config.rateLimits.authFailuresPerMinute).toBe(100);
    for (const ok of ['false', 'true', '10.0.0.0/8', '10.0.0.1, ::1']) expect(() => validateEnvironment({ TRUST_PROXY: ok })).not.toThrow();
    for (const bad of ['yes', 'proxy.example.com', '10.0.0.1;rm']) expect(() => validateEnvironment({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    expect(() => validateEnvironment({ RATE_LIMIT_LOOKUP_PER_KEY: '-1' })).toThrow(/RATE_LIMIT_LOOKUP_PER_KEY/);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      validateEnvironment({ PORT: 'eighty', LLM_PROVIDER: 'gpt', DATABASE_URL: 'mysql://x', ADMIN_TOKEN: 'short', JOBS_ENABLED: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const names = (error as ConfigValidationError).problems.map((p) => p.variable).sort();
    expect(names).toEqual(['ADMIN_TOKEN', 'DATABASE_URL', 'JOBS_ENABLED', 'LLM_PROVIDER', 'PORT']);
    expect((error as Error).message).toMatch(/PORT/);
  });

  it('ignores variables it does not own', () => {
    expect(() => validateEnvironment({ PATH: '/usr/bin', HOME: '/root' })).not.toThrow();
  });
});

describe('.env.example', () => {
  const example = readFileSync(path.join(findProjectRoot(), '.env.example'), 'utf8');
  const listed = new Map(
    example
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
  );

  it('lists exactly the variables the config reads', () => {
    const known = [...Object.keys(new EnvironmentVariables()), ...OPTIONAL_KEYS].sort();
    expect([...listed.keys()].sort()).toEqual(known);
  });

  it('shows each default as the config applies it', () => {
    const defaults = new EnvironmentVariables() as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(defaults)) expect(`${key}=${listed.get(key)}`).toBe(`${key}=${String(value)}`);
    for (const key of OPTIONAL_KEYS) expect(`${key}=${listed.get(key)}`).toBe(`${key}=`);
  });
});

describe('AppConfig.database', () => {
  it('is computed once (it walks the file system for migrations/; /health reads it on every call) and cannot be changed', () => {
    const config = new AppConfig(validateEnvironment({ DATA_DIR: './data' }));
    const first = config.database;
    expect(config.database).toBe(first);
    expect(first.migrationsDir).toBe(path.join(findProjectRoot(), 'migrations'));
    expect(Object.isFrozen(first)).toBe(true);
  });
});
