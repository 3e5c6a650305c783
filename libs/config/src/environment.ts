import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';

const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};
const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);
/** Leading/trailing spaces (a pasted secret, `KEY= value` in a .env file) are not part of the value. */
const trimmedOrUndefined = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() || undefined : value);

export const LLM_PROVIDERS = ['none', 'openai', 'ollama'] as const;
export const EMBEDDING_PROVIDERS = ['local', 'openai', 'ollama'] as const;
/** OCR_ENABLED (docs/documents.md "Scanned PDFs (OCR)"). */
export const OCR_MODES = ['auto', 'on', 'off'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/**
 * Every environment variable Arbiter reads, with its default. `.env.example` mirrors this class
 * (a unit test keeps the two in step).
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test']) NODE_ENV: 'development' | 'production' | 'test' = 'development';

  // HTTP
  @IsString() HOST = '0.0.0.0';
  @Type(() => Number) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  @Type(() => Number) @IsInt() @Min(1024) BODY_LIMIT_BYTES = 1_048_576;
  /** A request body must arrive whole within this long (408 otherwise), whatever its size or content type. */
  @Type(() => Number) @IsInt() @Min(100) @Max(3_600_000) BODY_TIMEOUT_MS = 30_000;
  /** SIGTERM: in-flight requests get this long to finish before the process exits (running jobs are checkpointed and released). */
  @Type(() => Number) @IsInt() @Min(0) @Max(600_000) SHUTDOWN_GRACE_MS = 10_000;
  @IsIn(LOG_LEVELS) LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
  @Transform(toBool) @IsBoolean() SWAGGER_ENABLED = true;
  /** The built operator console (docs/console.md); empty: dist/console under the project root. */
  @Transform(emptyToUndefined) @IsOptional() @IsString() CONSOLE_DIR?: string;
  /**
   * CORS of the client routes (/ai, /api, /v1; docs/http-edge.md "CORS"): comma-separated origins
   * (`scheme://host[:port]`) allowed to call them from a browser; empty: any origin.
   */
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o.length > 0)
      : value,
  )
  @IsArray()
  @Matches(/^https?:\/\/[^/\s?#]+$/, {
    each: true,
    message: 'CORS_ORIGINS must list origins like https://shop.example.com (scheme://host[:port]), comma-separated',
  })
  CORS_ORIGINS: string[] = [];
  /**
   * Rate limits per minute (docs/http-edge.md "Rate limits"), per key and per tenant, by route class;
   * 0 = unlimited. The platform admin overrides them per tenant (`PUT /admin/tenants/:id/limits`).
   */
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_CHAT_PER_KEY = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_CHAT_PER_TENANT = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_ROUTE_PER_KEY = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_ROUTE_PER_TENANT = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_LOOKUP_PER_KEY = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_LOOKUP_PER_TENANT = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_INGEST_PER_KEY = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_INGEST_PER_TENANT = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_ADMIN_PER_KEY = 0;
  @Type(() => Number) @IsInt() @Min(0) RATE_LIMIT_ADMIN_PER_TENANT = 0;
  /** Days an audit log entry is kept unless its tenant set its own retention (docs/http-edge.md "Audit log"). */
  @Type(() => Number) @IsInt() @Min(1) @Max(3650) AUDIT_RETENTION_DAYS = 365;
  /** Failed credential checks (wrong, expired or revoked key or admin token) per client address per minute before 429; 0 = no limit. */
  @Type(() => Number) @IsInt() @Min(0) AUTH_FAILURE_LIMIT_PER_MINUTE = 100;
  /**
   * Whether `X-Forwarded-For` names the client (for the per-address limit): `false` (default), `true`
   * (trust every hop), or the proxies' addresses/CIDRs, comma-separated.
   */
  @Matches(/^(true|false|[0-9a-fA-F:./]+(\s*,\s*[0-9a-fA-F:./]+)*)$/, {
    message: 'TRUST_PROXY must be true, false, or addresses/CIDRs, comma-separated',
  })
  TRUST_PROXY = 'false';
  /** Files in (docs/documents.md "Upload"): the largest file an upload accepts (413 FILE_TOO_LARGE names it). */
  @Type(() => Number) @IsInt() @Min(1024) @Max(1_073_741_824) UPLOAD_MAX_FILE_BYTES = 52_428_800;
  /** The largest upload request, all files and fields together (413 BODY_TOO_LARGE). */
  @Type(() => Number) @IsInt() @Min(1024) @Max(4_294_967_296) UPLOAD_MAX_REQUEST_BYTES = 209_715_200;
  /** Files per upload request at most. */
  @Type(() => Number) @IsInt() @Min(1) @Max(1000) UPLOAD_MAX_FILES = 100;
  /** PDFs with more pages are refused (PDF_TOO_MANY_PAGES). */
  @Type(() => Number) @IsInt() @Min(1) @Max(100_000) UPLOAD_MAX_PDF_PAGES = 2000;
  /** One file's parsing is stopped after this long (PARSE_TIMEOUT). */
  @Type(() => Number) @IsInt() @Min(100) @Max(3_600_000) UPLOAD_PARSE_TIMEOUT_MS = 120_000;
  /** Extraction threads per process (files beyond that wait their turn). */
  @Type(() => Number) @IsInt() @Min(1) @Max(16) UPLOAD_PARSE_THREADS = 1;
  /**
   * Scanned PDF pages through OCR (docs/documents.md "Scanned PDFs (OCR)"): `auto` uses tesseract and
   * pdftoppm where installed, `on` refuses to boot without them, `off` never runs them (PDF_NO_TEXT says so).
   */
  @IsIn(OCR_MODES) OCR_ENABLED: (typeof OCR_MODES)[number] = 'auto';
  /** tesseract languages, `+`-separated (`tesseract --list-langs` names them). */
  @Matches(/^[A-Za-z0-9_-]+(\+[A-Za-z0-9_-]+)*$/, { message: 'OCR_LANGUAGES must be tesseract language names joined by +, e.g. eng+chi_sim' })
  OCR_LANGUAGES = 'eng+chi_sim';
  /** Pages OCRed at once per process (each a pdftoppm then a single-threaded tesseract). */
  @Type(() => Number) @IsInt() @Min(1) @Max(16) OCR_CONCURRENCY = 1;

  // Database
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' }) DATABASE_URL?: string;
  @IsString() @MinLength(1) DATA_DIR = './data';
  @Type(() => Number) @IsInt() @Min(1) @Max(200) DB_POOL_MAX = 10;
  @Transform(emptyToUndefined) @IsOptional() @IsString() MIGRATIONS_DIR?: string;
  /** Opening a connection (boot, migrations, the pool) gives up after this long. */
  @Type(() => Number) @IsInt() @Min(100) @Max(600_000) DB_CONNECT_TIMEOUT_MS = 5000;
  /** Server-side `statement_timeout` for every pool connection (0 = none). */
  @Type(() => Number) @IsInt() @Min(0) @Max(86_400_000) DB_STATEMENT_TIMEOUT_MS = 30_000;
  /** A request waiting this long for a free pool connection gets 503 DATABASE_UNAVAILABLE. */
  @Type(() => Number) @IsInt() @Min(100) @Max(600_000) DB_POOL_WAIT_TIMEOUT_MS = 5000;
  /**
   * `/health` says `down` once its probe has waited this long behind running work (empty: 300 s on the
   * embedded database, which runs one transaction at a time; 30 s on PostgreSQL).
   */
  @Transform(emptyToUndefined) @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(3_600_000) DB_HEALTH_BUSY_LIMIT_MS?: number;
  /**
   * Statements the app repeats run as named prepared statements (docs/hot-paths.md "Prepared statements"). Turn off
   * behind a pooler that hands a session's statements to other server connections (PgBouncer in transaction mode
   * before 1.21).
   */
  @Transform(toBool) @IsBoolean() DB_PREPARED_STATEMENTS = true;

  // Auth
  @Transform(trimmedOrUndefined)
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters (after trimming spaces)' })
  ADMIN_TOKEN?: string;
  @Transform(toBool) @IsBoolean() SEED_DEMO = true;

  // LLM (langchain, OpenAI-compatible)
  @IsIn(LLM_PROVIDERS) LLM_PROVIDER: (typeof LLM_PROVIDERS)[number] = 'none';
  @Transform(emptyToUndefined) @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) LLM_BASE_URL?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() LLM_API_KEY?: string;
  @IsString() LLM_MODEL = 'gpt-4o-mini';
  @Type(() => Number) @IsInt() @Min(100) LLM_TIMEOUT_MS = 20_000;

  // Embeddings
  @IsIn(EMBEDDING_PROVIDERS) EMBEDDING_PROVIDER: (typeof EMBEDDING_PROVIDERS)[number] = 'local';
  @Transform(emptyToUndefined) @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }) EMBEDDING_BASE_URL?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() EMBEDDING_API_KEY?: string;
  @IsString() EMBEDDING_MODEL = 'bge-m3';
  @Type(() => Number) @IsInt() @Min(8) @Max(4096) EMBEDDING_DIMENSION = 384;
  @Type(() => Number) @IsInt() @Min(100) EMBEDDING_TIMEOUT_MS = 10_000;

  // Jobs and monitoring
  @Transform(toBool) @IsBoolean() JOBS_ENABLED = true;
  @Type(() => Number) @IsInt() @Min(50) JOBS_POLL_INTERVAL_MS = 1000;
  @Type(() => Number) @IsInt() @Min(1000) JOBS_LEASE_MS = 60_000;
  /** Job runs one worker executes at once, at most one per tenant (docs/FOUNDATION.md "Jobs"). */
  @Type(() => Number) @IsInt() @Min(1) @Max(32) JOBS_CONCURRENCY = 4;
  /** JSON object overriding job schedules: {"coverage.backfill": "0 * * * *", "feedback.x": "off"}. */
  @Transform(emptyToUndefined) @IsOptional() @IsString() JOBS_SCHEDULES?: string;
  /** Finished job runs older than this many days are deleted by the daily `jobs.cleanup` job. */
  @Type(() => Number) @IsInt() @Min(1) @Max(3650) JOBS_RUN_RETENTION_DAYS = 30;
  @Transform(emptyToUndefined) @IsOptional() @IsString() @MinLength(8) METRICS_TOKEN?: string;
  @Transform(toBool) @IsBoolean() METRICS_TENANT_LABEL = false;
  /** Serve /metrics on this port only (its own listener, on HOST), so only Prometheus need reach it; unset = the API's port. 0 = any free port (tests). */
  @Transform(emptyToUndefined) @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(65535) METRICS_PORT?: number;

  // Webhooks (docs/webhooks.md)
  /** Comma-separated hosts or CIDRs a webhook URL may use although they resolve to private/loopback/link-local addresses (and may use http). */
  @Transform(emptyToUndefined) @IsOptional() @IsString() WEBHOOK_ALLOWED_HOSTS?: string;
  /** How long one delivery attempt waits for the receiver's answer. */
  @Type(() => Number) @IsInt() @Min(100) @Max(60_000) WEBHOOK_TIMEOUT_MS = 10_000;
  /** The first retry's delay; each further retry doubles it (at most 4 h), for up to 24 h after the event. */
  @Type(() => Number) @IsInt() @Min(10) @Max(3_600_000) WEBHOOK_RETRY_BASE_MS = 10_000;
  /** A subscription is disabled after this many failed attempts in a row (any of its deliveries). */
  @Type(() => Number) @IsInt() @Min(1) @Max(10_000) WEBHOOK_DISABLE_AFTER_FAILURES = 20;
  /** How often a job worker looks for new webhook events to fan out (the first attempt starts within about this long plus JOBS_POLL_INTERVAL_MS). */
  @Type(() => Number) @IsInt() @Min(50) @Max(5_000) WEBHOOK_DISPATCH_INTERVAL_MS = 1000;
  /** Events (and their deliveries) older than this many days are deleted by the daily `webhooks.cleanup` job, once none is pending. */
  @Type(() => Number) @IsInt() @Min(1) @Max(3650) WEBHOOK_RETENTION_DAYS = 30;

  // Chat
  @Type(() => Number) @IsInt() @Min(1) @Max(16) CHAT_MAX_STEPS = 4;
  /** One deadline per chat turn across every model call and tool; when it runs out the offline answer is returned. */
  @Type(() => Number) @IsInt() @Min(500) @Max(600_000) CHAT_TIMEOUT_MS = 15_000;
  /** A streamed chat turn (SSE) sends a heartbeat comment after this long without an event (docs/chat-clients.md). */
  @Type(() => Number) @IsInt() @Min(50) @Max(120_000) CHAT_STREAM_HEARTBEAT_MS = 15_000;
  /**
   * Conversations that remember (docs/chat-clients.md "Conversations"): at most this many earlier turns go to the model, and
   * `/v1/chat/completions` refuses a history with more (413 naming it); 0 → the model sees no history.
   */
  @Type(() => Number) @IsInt() @Min(0) @Max(32) CHAT_HISTORY_TURNS = 10;
  /** At most this many characters of earlier turns go to the model (older turns dropped first); `/v1` refuses more (413). */
  @Type(() => Number) @IsInt() @Min(0) @Max(32_000) CHAT_HISTORY_CHARS = 12_000;
  /** A session still RUNNING this long after it started (a crashed process) is marked FAILED by the `sessions.repair` job. */
  @Type(() => Number) @IsInt() @Min(10_000) SESSION_RUNNING_TIMEOUT_MS = 600_000;

  // Coverage: evaluator version new decisions use (must be registered; `v1` = docs/spec/coverage.md rules)
  @Matches(/^v[0-9]{1,3}$/, { message: 'COVERAGE_EVALUATOR_VERSION must look like v1' }) COVERAGE_EVALUATOR_VERSION = 'v1';
  /**
   * Sessions per committed page of the coverage backfill (one turn at the BackgroundGate); default 2,000 with
   * DATABASE_URL, 200 on the embedded database, where a page holds the one connection (~0.1 s at 200, ~1 s at 2,000).
   */
  @Transform(emptyToUndefined) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(50_000) COVERAGE_BACKFILL_BATCH_SIZE?: number;
}

export type EnvironmentKey = keyof EnvironmentVariables;
