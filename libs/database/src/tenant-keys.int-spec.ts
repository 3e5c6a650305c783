import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { CaseLibraryEntity, CaseLibrarySettingsEntity, CaseLibraryVersionEntity } from '@arbiter/case-library';
import { CoverageDecisionEntity } from '@arbiter/coverage';
import { BadCaseLabelEntity, SessionFeedbackEntity } from '@arbiter/feedback';
import { INTENT_ENTITIES } from '@arbiter/intent';
import { JobRunEntity } from '@arbiter/jobs';
import { INTENT_LEARNING_ENTITIES } from '@arbiter/intent-learning';
import { RETRIEVAL_ENTITIES } from '@arbiter/retrieval';
import { ConversationEntity, DiagnosisSessionEntity, ToolInvocationEntity } from '@arbiter/sessions';
import { ApiKeyEntity, TenantEntity } from '@arbiter/tenancy';
import { newMediumTest, type MediumTest, type TestDatabase } from '@arbiter/testing';
import { readMigrations } from './migrator.js';
import { detectSchemaDrift } from './schema-check.js';

/**
 * Distribution-ready schema (docs/SCALING.md): read from the catalog, on PGlite and on PostgreSQL.
 * A table with a tenant_id column is distributed by it, so each of its primary keys, unique
 * constraints, unique indexes and exclusion constraints must contain tenant_id, and each foreign key
 * must carry tenant_id to the referenced table's tenant_id (co-located) unless it references a
 * reference table. Only these two stay reference tables (replicated to every node):
 */
const REFERENCE_TABLES = new Set(['tenant', 'api_key']);
/** Local to the coordinator: the migrator's bookkeeping, no tenant_id. */
const LOCAL_TABLES = new Set(['schema_migrations']);
/** The first migration after the keys were made distribution-ready. */
const TENANT_KEYS_MIGRATION = '0120';
const LEGACY_SCHEMA = 'tenant_keys_legacy';
/** The migration that distributes the tables when the citus extension is present (docs/SCALING.md "Running on Citus"). */
const CITUS_MIGRATION = '0260';

type Placement = 'distributed' | 'reference' | 'local';

interface CatalogTable {
  table: string;
  hasTenantId: boolean;
}

interface CatalogKey {
  table: string;
  name: string;
  /** p primary key, u unique constraint, x exclusion constraint, f foreign key, i unique index without a constraint. */
  kind: 'p' | 'u' | 'x' | 'f' | 'i';
  columns: string[];
  refTable: string | null;
  refColumns: string[] | null;
}

interface Catalog {
  tables: CatalogTable[];
  keys: CatalogKey[];
}

async function readCatalog(pool: pg.Pool, schema: string): Promise<Catalog> {
  const tables = await pool.query<CatalogTable>(
    `SELECT c.relname AS "table",
            EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND a.attnum > 0 AND NOT a.attisdropped) AS "hasTenantId"
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY 1`,
    [schema],
  );
  // Key columns in key order; an expression column of a unique index shows as '(expression)'.
  const keys = await pool.query<CatalogKey>(
    `SELECT r.relname AS "table", con.conname AS name, con.contype::text AS kind,
            ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            f.relname::text AS "refTable",
            CASE WHEN con.contype = 'f' THEN
              ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord) END AS "refColumns"
       FROM pg_constraint con
       JOIN pg_class r ON r.oid = con.conrelid
       JOIN pg_namespace n ON n.oid = r.relnamespace
       LEFT JOIN pg_class f ON f.oid = con.confrelid
      WHERE n.nspname = $1 AND con.contype IN ('p', 'u', 'x', 'f')
     UNION ALL
     SELECT r.relname, i.relname, 'i',
            ARRAY(SELECT coalesce(a.attname::text, '(expression)') FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                    LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum AND k.attnum > 0
                   WHERE k.ord <= x.indnkeyatts ORDER BY k.ord),
            NULL, NULL
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class r ON r.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = r.relnamespace
      WHERE n.nspname = $1 AND x.indisunique
        AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = x.indexrelid AND con.contype IN ('p', 'u', 'x'))
      ORDER BY 1, 2`,
    [schema],
  );
  return { tables: tables.rows, keys: keys.rows };
}

function placementOf(table: CatalogTable): Placement {
  if (REFERENCE_TABLES.has(table.table)) return 'reference';
  if (table.hasTenantId) return 'distributed';
  return LOCAL_TABLES.has(table.table) ? 'local' : 'reference';
}

/** Every key that would stop the schema from being distributed by tenant_id, as `table.name kind (columns)`. */
function keysWithoutTenant(catalog: Catalog): string[] {
  const placement = new Map(catalog.tables.map((t) => [t.table, placementOf(t)]));
  const violations: string[] = [];
  for (const key of catalog.keys) {
    const label = `${key.table}.${key.name} ${key.kind} (${key.columns.join(', ')})`;
    const own = placement.get(key.table);
    if (own !== 'distributed') {
      // A reference (or local) table may only reference reference tables.
      if (key.kind === 'f' && placement.get(key.refTable ?? '') === 'distributed') violations.push(`${label} -> ${key.refTable}`);
      continue;
    }
    if (key.kind !== 'f') {
      if (!key.columns.includes('tenant_id')) violations.push(label);
      continue;
    }
    if (placement.get(key.refTable ?? '') === 'reference') continue;
    const at = key.columns.indexOf('tenant_id');
    if (at < 0 || key.refColumns?.[at] !== 'tenant_id') violations.push(`${label} -> ${key.refTable} (${(key.refColumns ?? []).join(', ')})`);
  }
  return violations.sort();
}

/** Rows `| \`table\` | placement | ...` of docs/SCALING.md's "Tables" section. */
function documentedPlacements(): Map<string, string> {
  const doc = readFileSync(path.resolve('docs/SCALING.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Tables'));
  if (!section) throw new Error('docs/SCALING.md has no "## Tables" section');
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\|\s*`([a-z0-9_]+)`\s*\|\s*([a-z]+)\s*\|/gm)) {
    if (rows.has(match[1]!)) throw new Error(`docs/SCALING.md lists ${match[1]} twice`);
    rows.set(match[1]!, match[2]!);
  }
  return rows;
}

interface DocumentedTimeColumn {
  table: string;
  column: string;
  /** `idx_name (a, b)` of the third cell, or null for '—'. */
  index: { name: string; columns: string[] } | null;
}

/** Rows `| \`table\` | \`column\` | \`idx_x (a, b)\` or — | ...` of docs/SCALING.md's "Time partitioning and retention" section. */
function documentedTimeColumns(): DocumentedTimeColumn[] {
  const doc = readFileSync(path.resolve('docs/SCALING.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Time partitioning and retention'));
  if (!section) throw new Error('docs/SCALING.md has no "## Time partitioning and retention" section');
  return [...section.matchAll(/^\|\s*`([a-z0-9_]+)`\s*\|\s*`([a-z0-9_]+)`\s*\|\s*(?:`([a-z0-9_]+) \(([a-z0-9_, ]+)\)`|—)\s*\|/gm)].map((m) => ({
    table: m[1]!,
    column: m[2]!,
    index: m[3] ? { name: m[3], columns: m[4]!.split(',').map((c) => c.trim()) } : null,
  }));
}

/** Every entity of the app: their keys are compared with the catalog's. */
const ENTITIES = [
  TenantEntity,
  ApiKeyEntity,
  ConversationEntity,
  DiagnosisSessionEntity,
  ToolInvocationEntity,
  ...INTENT_ENTITIES,
  ...RETRIEVAL_ENTITIES,
  SessionFeedbackEntity,
  CaseLibraryEntity,
  CaseLibrarySettingsEntity,
  CaseLibraryVersionEntity,
  BadCaseLabelEntity,
  CoverageDecisionEntity,
  JobRunEntity,
  ...INTENT_LEARNING_ENTITIES,
];

describe('distribution-ready schema (catalog)', () => {
  let medium: MediumTest;
  let db: TestDatabase;
  let catalog: Catalog;
  beforeAll(async () => {
    medium = await newMediumTest({ entities: ENTITIES });
    db = medium.db;
    catalog = await readCatalog(db.pool, 'public');
  });
  afterAll(() => medium?.close());

  it('reads the tables and their keys from the catalog', () => {
    const names = catalog.tables.map((t) => t.table);
    expect(names).toEqual(expect.arrayContaining(['tenant', 'api_key', 'diagnosis_session', 'job_run', 'knowledge_chunk', 'session_stats_delta']));
    expect(catalog.keys).toContainEqual({
      table: 'tool_invocation',
      name: 'fk_tool_invocation_session',
      kind: 'f',
      columns: ['tenant_id', 'session_id'],
      refTable: 'diagnosis_session',
      refColumns: ['tenant_id', 'id'],
    });
    // Unique indexes without a constraint (partial ones too) are read as keys.
    expect(catalog.keys).toContainEqual(expect.objectContaining({ table: 'diagnosis_session', name: 'uq_session_idempotency_key', kind: 'i' }));
  });

  it('every primary key, unique constraint, unique index and foreign key of a tenant table includes tenant_id', () => {
    expect(keysWithoutTenant(catalog)).toEqual([]);
  });

  it('every table with tenant_id except the reference tables has a primary key, except the postings table knowledge_term', () => {
    const withPk = new Set(catalog.keys.filter((k) => k.kind === 'p').map((k) => k.table));
    const distributed = catalog.tables.filter((t) => placementOf(t) === 'distributed').map((t) => t.table);
    expect(distributed.filter((t) => !withPk.has(t))).toEqual(['knowledge_term']);
  });

  it('the only tables without tenant_id are tenant and the migrator bookkeeping', () => {
    expect(
      catalog.tables
        .filter((t) => !t.hasTenantId)
        .map((t) => t.table)
        .sort(),
    ).toEqual(['schema_migrations', 'tenant']);
  });

  it('docs/SCALING.md places every table as the catalog does, and no other table', () => {
    // A new table needs a row in docs/SCALING.md's "Tables" (a table with tenant_id: `distributed`).
    const fromCatalog = new Map(catalog.tables.map((t) => [t.table, placementOf(t)]));
    expect(Object.fromEntries([...documentedPlacements()].sort())).toEqual(Object.fromEntries([...fromCatalog].sort()));
  });

  it(`migration ${CITUS_MIGRATION} places every table as docs/SCALING.md says on Citus (distributed ones co-located), and is a no-op elsewhere`, async () => {
    const applied = await db.pool.query(`SELECT 1 FROM schema_migrations WHERE version = $1`, [CITUS_MIGRATION]);
    expect(applied.rowCount).toBe(1);
    if (db.kind !== 'citus') {
      const citus = await db.pool.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
      expect(citus.rowCount).toBe(0);
      return;
    }
    const placed = await db.pool.query<{ table: string; placement: Placement; colocated: boolean }>(
      `SELECT c.relname AS "table",
              CASE WHEN p.logicalrelid IS NULL THEN 'local' WHEN p.partmethod = 'h' THEN 'distributed' WHEN p.repmodel = 't' THEN 'reference' ELSE 'local' END AS placement,
              coalesce(p.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'conversation'::regclass), false) AS colocated
         FROM pg_class c LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
    );
    expect(Object.fromEntries(placed.rows.map((r) => [r.table, r.placement]).sort())).toEqual(Object.fromEntries([...documentedPlacements()].sort()));
    expect(placed.rows.filter((r) => r.placement === 'distributed' && !r.colocated).map((r) => r.table)).toEqual([]);
  });

  it("the boot's schema check finds no drift between every entity and the schema (on Citus too, after the distribution)", async () => {
    expect(await detectSchemaDrift(medium.dataSource)).toEqual([]);
  });

  it('the time columns and retention indexes docs/SCALING.md names exist: timestamptz NOT NULL, indexes with those columns', async () => {
    const documented = documentedTimeColumns();
    expect(documented.map((d) => d.table)).toEqual(expect.arrayContaining(['diagnosis_session', 'tool_invocation', 'decision_log']));
    const columns = await db.pool.query<{ table: string; column: string }>(
      `SELECT c.table_name AS "table", c.column_name AS "column"
         FROM information_schema.columns c
        WHERE c.table_schema = 'public' AND c.data_type = 'timestamp with time zone' AND c.is_nullable = 'NO'`,
    );
    const present = new Set(columns.rows.map((r) => `${r.table}.${r.column}`));
    expect(documented.map((d) => `${d.table}.${d.column}`).filter((tc) => !present.has(tc))).toEqual([]);
    const indexes = await db.pool.query<{ table: string; name: string; columns: string[] }>(
      `SELECT r.relname AS "table", i.relname AS name,
              ARRAY(SELECT coalesce(a.attname::text, '(expression)') FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                      LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum AND k.attnum > 0
                     WHERE k.ord <= x.indnkeyatts ORDER BY k.ord) AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid JOIN pg_namespace n ON n.oid = r.relnamespace
        WHERE n.nspname = 'public'`,
    );
    const documentedIndexes = documented.flatMap((d) => (d.index ? [{ table: d.table, ...d.index }] : []));
    expect(documentedIndexes.length).toBeGreaterThanOrEqual(3);
    for (const index of documentedIndexes) expect(indexes.rows).toContainEqual(index);
  });

  it('the entities declare the same primary keys, unique constraints and foreign keys as the catalog', async () => {
    // TypeORM's schema check compares keys by name only; this compares their columns.
    const ds = medium.dataSource;
    const declared: CatalogKey[] = [];
    for (const m of ds.entityMetadatas) {
      const pk = m.primaryColumns.map((c) => c.databaseName);
      declared.push({ table: m.tableName, name: m.primaryColumns[0]!.primaryKeyConstraintName!, kind: 'p', columns: pk, refTable: null, refColumns: null });
      for (const u of m.uniques)
        declared.push({ table: m.tableName, name: u.name, kind: 'u', columns: u.columns.map((c) => c.databaseName), refTable: null, refColumns: null });
      for (const f of m.foreignKeys) {
        declared.push({
          table: m.tableName,
          name: f.name,
          kind: 'f',
          columns: f.columnNames,
          refTable: f.referencedTablePath,
          refColumns: f.referencedColumnNames,
        });
      }
    }
    const tables = new Set(ds.entityMetadatas.map((m) => m.tableName));
    // An entity declares no column order for a primary key, and TypeORM orders a foreign key's columns
    // its own way (the referenced entity's property order): compare those as sets of (column, referenced column).
    const normalise = (k: CatalogKey): CatalogKey => {
      if (k.kind === 'p') return { ...k, columns: [...k.columns].sort() };
      if (k.kind !== 'f') return k;
      const pairs = k.columns.map((c, i) => [c, k.refColumns?.[i] ?? '?'] as const).sort(([a], [b]) => a.localeCompare(b));
      return { ...k, columns: pairs.map(([c]) => c), refColumns: pairs.map(([, r]) => r) };
    };
    const byName = (a: CatalogKey, b: CatalogKey) => `${a.table}.${a.name}`.localeCompare(`${b.table}.${b.name}`);
    const inCatalog = catalog.keys
      .filter((k) => tables.has(k.table) && k.kind !== 'i')
      .map(normalise)
      .sort(byName);
    expect(declared.map(normalise).sort(byName)).toEqual(inCatalog);
  });

  it(`fails on the schema before migration ${TENANT_KEYS_MIGRATION}, naming each key it converted`, async () => {
    // The migrations before 0120, in a schema of their own in the same database.
    const client = await db.pool.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${LEGACY_SCHEMA} CASCADE; CREATE SCHEMA ${LEGACY_SCHEMA}`);
      await client.query(`SET search_path TO ${LEGACY_SCHEMA}, public`);
      for (const migration of readMigrations(path.resolve('migrations')).filter((m) => m.version < TENANT_KEYS_MIGRATION)) await client.query(migration.sql);
      await client.query('SET search_path TO DEFAULT');
      const legacy = await readCatalog(db.pool, LEGACY_SCHEMA);
      expect(keysWithoutTenant(legacy)).toEqual([
        'case_library.pk_case_library p (id)',
        'case_library.uq_case_library_session u (session_id)',
        'conversation.pk_conversation p (id)',
        'coverage_decision.fk_coverage_decision_session f (session_id) -> diagnosis_session (id)',
        'coverage_decision.pk_coverage_decision p (session_id, evaluator_version)',
        'diagnosis_session.fk_session_conversation f (conversation_id) -> conversation (id)',
        'diagnosis_session.pk_diagnosis_session p (id)',
        'intent_rule.pk_intent_rule p (id)',
        'intent_rule_embedding.fk_intent_rule_embedding_rule f (rule_id) -> intent_rule (id)',
        'intent_rule_embedding.pk_intent_rule_embedding p (id)',
        'intent_rule_embedding.uq_intent_rule_embedding_rule_model u (rule_id, embedding_model)',
        'intent_tenant_config.pk_intent_tenant_config p (id)',
        'job_run.pk_job_run p (id)',
        'job_run.uq_job_run_schedule_key u (schedule_key)',
        'knowledge_chunk.fk_knowledge_chunk_document f (document_id) -> knowledge_document (id)',
        'knowledge_chunk.pk_knowledge_chunk p (id)',
        'knowledge_chunk.uq_knowledge_chunk_position u (document_id, embedding_model, chunk_index)',
        'knowledge_document.pk_knowledge_document p (id)',
        'knowledge_term.fk_knowledge_term_document f (document_id) -> knowledge_document (id)',
        'retrieval_memory.pk_retrieval_memory p (id)',
        'retrieval_settings.pk_retrieval_settings p (id)',
        'session_feedback.fk_session_feedback_session f (session_id) -> diagnosis_session (id)',
        'session_feedback.pk_session_feedback p (id)',
        'session_feedback.uq_session_feedback_session u (session_id)',
        'tool_invocation.fk_tool_invocation_session f (session_id) -> diagnosis_session (id)',
        'tool_invocation.pk_tool_invocation p (id)',
      ]);
    } finally {
      await client.query(`SET search_path TO DEFAULT; DROP SCHEMA IF EXISTS ${LEGACY_SCHEMA} CASCADE`).catch(() => undefined);
      client.release();
    }
  });
});
