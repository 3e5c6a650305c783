/**
 * Child process for the backfill crash test (libs/coverage/src/coverage-backfill.crash.int-spec.ts):
 * runs the real backfill against DATABASE_URL, saving its state to a file after every committed
 * batch (as the job runner saves its checkpoint), and resumes from that file when it exists.
 * Run with `node --import ./bench/support/register.mjs test/coverage/backfill-child.ts`.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { pgAsDataSource } from '../../bench/support/pg-data-source.js';
import { asTenantId } from '@arbiter/common';
import { CoverageEvaluatorV1, CoverageRepository, runCoverageBackfill, type BackfillState } from '@arbiter/coverage';

const [url, tenantId, stateFile, batchSize, pauseMs] = process.argv.slice(2) as [string, string, string, string, string];
const pool = new pg.Pool({ connectionString: url, max: 2 });
const dataSource = pgAsDataSource(pool);

const resume = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as BackfillState) : null;
const final = await runCoverageBackfill(
  new CoverageRepository(dataSource),
  new CoverageEvaluatorV1(),
  asTenantId(tenantId),
  { evaluatorVersion: 'v1', fromTs: null, toTs: null, batchSize: Number(batchSize) },
  resume,
  {
    onBatch: async (state) => {
      writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
      renameSync(`${stateFile}.tmp`, stateFile);
      process.stdout.write(`batch ${state.batches}\n`);
      await sleep(Number(pauseMs));
    },
  },
);
process.stdout.write(`done ${JSON.stringify(final)}\n`);
await pool.end();
