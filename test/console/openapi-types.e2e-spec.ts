import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { createTestApp, type TestApp } from '../support/test-app.js';

// The console's API types are generated from the OpenAPI document the API serves (docs/console.md).
// `npm run console:api` rewrites the file; this test fails when the API changed and the file did not.
const SCHEMA_FILE = path.resolve('apps/console/src/api/schema.d.ts');
const HEADER = '// Generated from GET /docs-json by `npm run console:api` (test/console/openapi-types.e2e-spec.ts). Do not edit.\n';

describe('console API types (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('apps/console/src/api/schema.d.ts is what openapi-typescript makes of the served OpenAPI document', async () => {
    const res = await t.request({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    const generated = await format(HEADER + astToString(await openapiTS(res.json())), { ...(await resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE });
    if (process.env.UPDATE_CONSOLE_API === '1') await writeFile(SCHEMA_FILE, generated);
    const committed = await readFile(SCHEMA_FILE, 'utf8').catch(() => '');
    expect(committed.length).toBeGreaterThan(1000);
    // Not toEqual on the whole text: a failure should name the first differing line, not print 10k lines.
    const committedLines = committed.split('\n');
    const generatedLines = generated.split('\n');
    const firstDiff = generatedLines.findIndex((line, i) => committedLines[i] !== line);
    expect({
      firstDifferingLine: firstDiff === -1 && committedLines.length === generatedLines.length ? null : firstDiff + 1,
      hint: 'run npm run console:api',
    }).toEqual({
      firstDifferingLine: null,
      hint: 'run npm run console:api',
    });
  });
});
