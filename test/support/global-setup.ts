import { randomBytes } from 'node:crypto';

/**
 * Only mints a run id: the migrated template database is built lazily by the first worker that
 * needs it (`ensureTemplate` in @arbiter/testing), because this file is loaded as CommonJS and
 * cannot import our ESM sources.
 */
export default function globalSetup(): void {
  process.env.ARBITER_TEST_RUN = `${process.pid}_${randomBytes(4).toString('hex')}`;
}
