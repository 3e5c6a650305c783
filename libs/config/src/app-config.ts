import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EnvironmentVariables } from './environment.js';

/** The repository root: the nearest folder above this file holding package.json and migrations/ (works from src and dist). */
export function findProjectRoot(start = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  // The project root holds migrations/ next to its package.json (each lib has a package.json of its own).
  while (!(existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'migrations')))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/**
 * The coverage backfill's page on the embedded database: a page is one turn holding its one connection, and the
 * requests that arrive meanwhile wait for it (1,923 sessions/s measured: ~0.1 s; docs/hot-paths.md "Imports: foreground first").
 */
const EMBEDDED_BACKFILL_BATCH_SIZE = 200;

/** Typed, grouped view over the validated environment. Inject this, never read process.env. */
export class AppConfig {
  constructor(readonly env: EnvironmentVariables) {}

  get nodeEnv() {
    return this.env.NODE_ENV;
  }

  get http() {
    return {
      host: this.env.HOST,
      port: this.env.PORT,
      bodyLimitBytes: this.env.BODY_LIMIT_BYTES,
      bodyTimeoutMs: this.env.BODY_TIMEOUT_MS,
      shutdownGraceMs: this.env.SHUTDOWN_GRACE_MS,
      swaggerEnabled: this.env.SWAGGER_ENABLED,
      corsOrigins: this.env.CORS_ORIGINS,
    };
  }

  /** The built operator console (docs/console.md "Serving"). Computed once: the default walks the file system for the project root. */
  get consoleDir(): string {
    return (this.consoleDirView ??= this.env.CONSOLE_DIR ? path.resolve(this.env.CONSOLE_DIR) : path.join(findProjectRoot(), 'dist', 'console'));
  }

  /** Files in (docs/documents.md "Upload"): limits of an upload and of one file's extraction. */
  get uploads() {
    return {
      maxFileBytes: this.env.UPLOAD_MAX_FILE_BYTES,
      maxRequestBytes: this.env.UPLOAD_MAX_REQUEST_BYTES,
      maxFiles: this.env.UPLOAD_MAX_FILES,
      maxPdfPages: this.env.UPLOAD_MAX_PDF_PAGES,
      parseTimeoutMs: this.env.UPLOAD_PARSE_TIMEOUT_MS,
      parseThreads: this.env.UPLOAD_PARSE_THREADS,
    };
  }

  /** Scanned PDF pages through OCR (docs/documents.md "Scanned PDFs (OCR)"). */
  get ocr() {
    return {
      mode: this.env.OCR_ENABLED,
      languages: this.env.OCR_LANGUAGES.split('+'),
      concurrency: this.env.OCR_CONCURRENCY,
    };
  }

  get logLevel() {
    return this.env.LOG_LEVEL;
  }

  /** Computed once: it walks the file system for the migrations folder, and `/health` reads it on every call. */
  get database() {
    return (this.databaseView ??= Object.freeze(this.buildDatabaseView()));
  }

  private consoleDirView: string | undefined;

  private databaseView: Readonly<ReturnType<AppConfig['buildDatabaseView']>> | undefined;

  private buildDatabaseView() {
    return {
      url: this.env.DATABASE_URL,
      embedded: !this.env.DATABASE_URL,
      dataDir: path.resolve(this.env.DATA_DIR),
      poolMax: this.env.DB_POOL_MAX,
      connectTimeoutMs: this.env.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: this.env.DB_STATEMENT_TIMEOUT_MS,
      poolWaitTimeoutMs: this.env.DB_POOL_WAIT_TIMEOUT_MS,
      preparedStatements: this.env.DB_PREPARED_STATEMENTS,
      healthBusyLimitMs: this.env.DB_HEALTH_BUSY_LIMIT_MS ?? (this.env.DATABASE_URL ? 30_000 : 300_000),
      migrationsDir: this.env.MIGRATIONS_DIR ? path.resolve(this.env.MIGRATIONS_DIR) : path.join(findProjectRoot(), 'migrations'),
    };
  }

  get auth() {
    return { adminToken: this.env.ADMIN_TOKEN, seedDemo: this.env.SEED_DEMO };
  }

  get llm() {
    return {
      provider: this.env.LLM_PROVIDER,
      enabled: this.env.LLM_PROVIDER !== 'none',
      baseUrl: this.env.LLM_BASE_URL,
      apiKey: this.env.LLM_API_KEY,
      model: this.env.LLM_MODEL,
      timeoutMs: this.env.LLM_TIMEOUT_MS,
    };
  }

  get embedding() {
    return {
      provider: this.env.EMBEDDING_PROVIDER,
      baseUrl: this.env.EMBEDDING_BASE_URL,
      apiKey: this.env.EMBEDDING_API_KEY,
      model: this.env.EMBEDDING_MODEL,
      dimension: this.env.EMBEDDING_DIMENSION,
      timeoutMs: this.env.EMBEDDING_TIMEOUT_MS,
    };
  }

  get jobs() {
    return {
      enabled: this.env.JOBS_ENABLED,
      pollIntervalMs: this.env.JOBS_POLL_INTERVAL_MS,
      leaseMs: this.env.JOBS_LEASE_MS,
      concurrency: this.env.JOBS_CONCURRENCY,
      schedules: this.env.JOBS_SCHEDULES,
      runRetentionDays: this.env.JOBS_RUN_RETENTION_DAYS,
    };
  }

  get webhooks() {
    return {
      allowedHosts: this.env.WEBHOOK_ALLOWED_HOSTS ?? '',
      timeoutMs: this.env.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: this.env.WEBHOOK_RETRY_BASE_MS,
      disableAfterFailures: this.env.WEBHOOK_DISABLE_AFTER_FAILURES,
      dispatchIntervalMs: this.env.WEBHOOK_DISPATCH_INTERVAL_MS,
      retentionDays: this.env.WEBHOOK_RETENTION_DAYS,
    };
  }

  /** Rate limits per minute by route class (0 = unlimited) and the per-address limit of failed credential checks. */
  get rateLimits() {
    const e = this.env;
    return {
      perKey: {
        chat: e.RATE_LIMIT_CHAT_PER_KEY,
        route: e.RATE_LIMIT_ROUTE_PER_KEY,
        lookup: e.RATE_LIMIT_LOOKUP_PER_KEY,
        ingest: e.RATE_LIMIT_INGEST_PER_KEY,
        admin: e.RATE_LIMIT_ADMIN_PER_KEY,
      },
      perTenant: {
        chat: e.RATE_LIMIT_CHAT_PER_TENANT,
        route: e.RATE_LIMIT_ROUTE_PER_TENANT,
        lookup: e.RATE_LIMIT_LOOKUP_PER_TENANT,
        ingest: e.RATE_LIMIT_INGEST_PER_TENANT,
        admin: e.RATE_LIMIT_ADMIN_PER_TENANT,
      },
      authFailuresPerMinute: e.AUTH_FAILURE_LIMIT_PER_MINUTE,
    };
  }

  get audit() {
    return { retentionDays: this.env.AUDIT_RETENTION_DAYS };
  }

  get metrics() {
    return { token: this.env.METRICS_TOKEN, tenantLabel: this.env.METRICS_TENANT_LABEL, port: this.env.METRICS_PORT };
  }

  get chat() {
    return {
      maxSteps: this.env.CHAT_MAX_STEPS,
      timeoutMs: this.env.CHAT_TIMEOUT_MS,
      streamHeartbeatMs: this.env.CHAT_STREAM_HEARTBEAT_MS,
      historyTurns: this.env.CHAT_HISTORY_TURNS,
      historyChars: this.env.CHAT_HISTORY_CHARS,
    };
  }

  get sessions() {
    return { runningTimeoutMs: this.env.SESSION_RUNNING_TIMEOUT_MS };
  }

  get coverage() {
    return {
      evaluatorVersion: this.env.COVERAGE_EVALUATOR_VERSION,
      backfillBatchSize: this.env.COVERAGE_BACKFILL_BATCH_SIZE ?? (this.env.DATABASE_URL ? 2000 : EMBEDDED_BACKFILL_BATCH_SIZE),
    };
  }
}
