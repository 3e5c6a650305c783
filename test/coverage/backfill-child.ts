/**
 * Child process for the backfill crash test (libs/coverage/src/coverage-backfill.crash.int-spec.ts):
 * runs the real backfill against DATABASE_URL, saving its state to a file after every committed
 * batch (as the job runner saves its checkpoint), and resumes from that file when it exists.
 * Arguments: url tenantId stateFile batchSize pauseMs [rows|set] — `set` runs the set-based v1 backfill
 * (what the job runs for v1), `rows` (default) the row-by-row one.
 * Run with `node --import ./bench/support/register.mjs test/coverage/backfill-child.ts`.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { pgAsDatabase } from '../../bench/support/pg-data-source.js';
import { asTenantId } from '@arbiter/common';
import {
  CoverageBackfillRepository,
  CoverageEvaluatorV1,
  CoverageRepository,
  runCoverageBackfill,
  runSetBasedCoverageBackfill,
  type BackfillRunOptions,
  type BackfillState,
} from '@arbiter/coverage';

const [url, tenantId, stateFile, batchSize, pauseMs, mode] = process.argv.slice(2) as [string, string, string, string, string, string | undefined];
const pool = new pg.Pool({ connectionString: url, max: 2 });
const database = pgAsDatabase(pool);

const resume = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as BackfillState) : null;
const backfill = new CoverageBackfillRepository(database, new CoverageRepository(database));
const params = { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize: Number(batchSize) };
const options: BackfillRunOptions = {
  onBatch: async (state) => {
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
    renameSync(`${stateFile}.tmp`, stateFile);
    process.stdout.write(`batch ${state.batches}\n`);
    await sleep(Number(pauseMs));
  },
};
const final =
  mode === 'set'
    ? await runSetBasedCoverageBackfill(backfill, new CoverageEvaluatorV1(), asTenantId(tenantId), params, resume, options)
    : await runCoverageBackfill(backfill, new CoverageEvaluatorV1(), asTenantId(tenantId), params, resume, options);
process.stdout.write(`done ${JSON.stringify(final)}\n`);
await pool.end();
