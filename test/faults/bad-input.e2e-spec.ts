import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { prng } from '@arbiter/testing';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp, type TestTenant } from '../support/test-app.js';

/** Issue 11: bad input is a 4xx in the one error shape, names the field, echoes nothing and writes nothing. */

const ERROR_KEYS = new Set(['statusCode', 'error', 'message', 'code', 'details', 'requestId']);
/** The OpenAI-compatible routes answer errors in OpenAI's shape (docs/chat-clients.md). */
function isOpenAiError(json: Record<string, unknown>): boolean {
  const error = json.error as Record<string, unknown> | undefined;
  return (
    Object.keys(json).length === 1 &&
    typeof error === 'object' &&
    error !== null &&
    typeof error.message === 'string' &&
    typeof error.type === 'string' &&
    typeof error.requestId === 'string'
  );
}
const NUL = '\u0000';
const LONE = '\ud800';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function expectErrorShape(res: LightMyRequestResponse, status: number): { message: string; details?: { fields?: string[] } } {
  expect(res.statusCode).toBe(status);
  const body = res.json<Record<string, unknown>>();
  expect(Object.keys(body).every((k) => ERROR_KEYS.has(k))).toBe(true);
  expect(body).toMatchObject({ statusCode: status, error: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
  return body as { message: string; details?: { fields?: string[] } };
}

describe('faults: bad input (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let sessionId: string;
  let ruleId: string;
  let caseId: string;

  const auth = (url: string): Record<string, string> =>
    url.startsWith('/admin/tenants') ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } : { 'x-api-key': tenant.operatorKey };
  const send = (method: Method, url: string, payload?: unknown, extra: Partial<InjectOptions> = {}) =>
    t.request({
      method,
      url,
      headers: { ...auth(url), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...(extra.headers ?? {}) },
      ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
    });

  /** Row count of every table: a rejected request must change none. */
  const rowCounts = async (): Promise<Record<string, number>> => {
    const tables = await t.db.pool.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
    const out: Record<string, number> = {};
    for (const { tablename } of tables.rows) {
      const r = await t.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${tablename}"`);
      out[tablename] = Number(r.rows[0].n);
    }
    return out;
  };

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant('faults-bad-input');
    const s = await send('POST', '/api/sessions', {
      query: '机械臂报警 E102',
      answer: '请检查伺服电机',
      status: 'SUCCESS',
      references: [{ filePath: 'a.md', score: 0.8 }],
    });
    expect(s.statusCode).toBe(201);
    sessionId = s.json<{ id: string }>().id;
    const r = await send('POST', '/admin/intent-rules', { intent: 'reset', keywords: ['复位'] });
    expect(r.statusCode).toBe(201);
    ruleId = r.json<{ id: string }>().id;
    const c = await send('POST', '/admin/case-library', { query: '怎么复位', answer: '按住复位键' });
    expect(c.statusCode).toBe(201);
    caseId = c.json<{ id: string }>().id;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  /** [method, url, body with `<BAD>` where the bad string goes, the field path the 400 must name] */
  const textFields = (): [Method, string, Record<string, unknown>, string][] => [
    ['POST', '/api/sessions', { query: '<BAD>', status: 'SUCCESS' }, 'query'],
    ['POST', '/api/sessions', { query: 'q', answer: 'a', status: 'SUCCESS', references: [{ title: '<BAD>', score: 0.5 }] }, 'references[0].title'],
    ['POST', '/ai/chat', { message: '<BAD>' }, 'message'],
    ['POST', '/ai/intent/route', { message: '<BAD>' }, 'message'],
    ['POST', '/api/feedback', { sessionId, feedback: 'useful', comment: '<BAD>' }, 'comment'],
    ['POST', '/admin/case-library', { query: '<BAD>', answer: 'a' }, 'query'],
    ['PATCH', `/admin/case-library/${caseId}`, { errorCode: '<BAD>' }, 'errorCode'],
    ['POST', '/admin/intent-rules', { intent: 'x', keywords: ['<BAD>'] }, 'keywords[0]'],
    ['PATCH', `/admin/intent-rules/${ruleId}`, { semanticExamples: ['ok', '<BAD>'] }, 'semanticExamples[1]'],
    ['POST', '/admin/intent-rules/evaluate', { examples: [{ text: '<BAD>', intent: 'reset' }] }, 'examples[0].text'],
    ['PUT', '/admin/intent-config', { semanticAggregation: '<BAD>' }, 'semanticAggregation'],
    ['POST', '/admin/tenants', { name: '<BAD>' }, 'name'],
    ['POST', '/admin/knowledge/documents', { domain: 'd', filePath: 'f.md', title: 't', content: 'c', metadata: { note: '<BAD>' } }, 'metadata.note'],
    ['POST', '/ai/knowledge/lookup', { sessionId, query: '<BAD>' }, 'query'],
    ['POST', '/admin/coverage/re-evaluate', { evaluatorVersion: '<BAD>' }, 'evaluatorVersion'],
    ['PUT', '/admin/knowledge/config', { chunkSize: 500, extra: '<BAD>' }, 'extra'],
    ['POST', '/admin/webhooks', { url: 'https://desk.example.com/h', events: ['job.failed'], description: '<BAD>' }, 'description'],
  ];
  const fill = (body: Record<string, unknown>, bad: string): unknown => JSON.parse(JSON.stringify(body).replaceAll('<BAD>', JSON.stringify(bad).slice(1, -1)));

  it('NUL (\\u0000) in a text field of every write endpoint → 400 naming the field; nothing written', async () => {
    const before = await rowCounts();
    for (const [method, url, body, field] of textFields()) {
      const res = await send(method, url, fill(body, `a${NUL}b`));
      const err = expectErrorShape(res, 400);
      expect({ url, fields: err.details?.fields }).toEqual({ url, fields: [field] });
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('lone surrogates ("\\ud800") in text and json fields → 400 naming the field; /ai/chat stores no session', async () => {
    const before = await rowCounts();
    for (const [method, url, body, field] of textFields()) {
      const err = expectErrorShape(await send(method, url, fill(body, `x${LONE}`)), 400);
      expect({ url, fields: err.details?.fields }).toEqual({ url, fields: [field] });
    }
    // Sent as the raw JSON escape, as a client would.
    const raw = await send('POST', '/api/sessions', '{"query":"q","status":"SUCCESS","references":[{"filePath":"\\udc00","score":0.5}]}');
    expect(expectErrorShape(raw, 400).details?.fields).toEqual(['references[0].filePath']);
    expect(await rowCounts()).toEqual(before);
  });

  it.each([
    ['domain', '/admin/knowledge/documents?domain=a%00b'],
    ['intent', '/admin/intent-rules?intent=%00'],
    ['intent', '/admin/monitoring/conversations?intent=x%00'],
    ['channel', '/admin/monitoring/conversations?channel=%00'],
    ['channel', '/admin/coverage/report?channel=web%00'],
  ])('NUL in the %s filter (%s) → 400', async (field, url) => {
    const err = expectErrorShape(await send('GET', url), 400);
    expect(err.details?.fields).toEqual([field]);
  });

  it('an extra field nested 10,000 arrays or 3,000 objects deep → 400 before class-transformer runs', async () => {
    const before = await rowCounts();
    const arrays = `{"query":"q","status":"SUCCESS","extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expect(expectErrorShape(await send('POST', '/api/sessions', arrays), 400).message).toMatch(/extra\[0\]/);
    const objects = `{"message":"hi","extra":${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}}`;
    expect(expectErrorShape(await send('POST', '/ai/chat', objects), 400).message).toMatch(/must not nest/);
    expect(await rowCounts()).toEqual(before);
  });

  it.each<[string, Method, string, unknown, string]>([
    ['blank required text', 'POST', '/api/sessions', { query: '   ', status: 'SUCCESS' }, 'query'],
    ['blank case answer', 'POST', '/admin/case-library', { query: 'q', answer: ' \n\t ' }, 'answer'],
    ['intent weight 1.7e308', 'PUT', '/admin/intent-config', { weights: { rule: 1.7e308 } }, 'weights.rule'],
    ['intent weight above 1', 'PUT', '/admin/intent-config', { weights: { semantic: 1.5 } }, 'weights.semantic'],
    ['reference score -1', 'POST', '/api/sessions', { query: 'q', status: 'SUCCESS', references: [{ filePath: 'a.md', score: -1 }] }, 'references[0].score'],
    [
      'reference score 1.01',
      'POST',
      '/api/sessions',
      { query: 'q', status: 'SUCCESS', references: [{ filePath: 'a.md', score: 1.01 }] },
      'references[0].score',
    ],
    [
      '1e309 in metadata',
      'POST',
      '/admin/knowledge/documents',
      '{"domain":"d","filePath":"f.md","title":"t","content":"c","metadata":{"n":1e309}}',
      'metadata.n',
    ],
    ['1e309 as a threshold', 'PUT', '/admin/intent-config', '{"semanticThreshold":-1e309}', 'semanticThreshold'],
    ['body null on re-evaluate', 'POST', '/admin/coverage/re-evaluate', 'null', 'body'],
    ['body a JSON string', 'POST', '/api/feedback', '"useful"', 'body'],
  ])('%s → 400 naming the field, nothing written', async (_name, method, url, payload, field) => {
    const before = await rowCounts();
    const err = expectErrorShape(await send(method, url, payload), 400);
    expect(err.details?.fields).toContain(field);
    expect(await rowCounts()).toEqual(before);
  });

  it('a 5,000-character path parameter → 414 in the error shape, without echoing the path', async () => {
    const long = 'x'.repeat(5000);
    const res = await send('GET', `/api/sessions/${long}`);
    const err = expectErrorShape(res, 414);
    expect(res.body).not.toContain('xxxxxxxxxx');
    expect(res.headers['x-request-id']).toBe(res.json<{ requestId: string }>().requestId);
    expect(err.message).toMatch(/too long/i);
  });

  it('an unknown long path → 404 whose message does not carry the whole path', async () => {
    const res = await send('GET', `/nope/${'y'.repeat(5000)}`);
    expectErrorShape(res, 404);
    expect(res.body.length).toBeLessThan(600);
  });

  it('a malformed JSON body → 400 "Malformed JSON body", without echoing the input', async () => {
    const res = await send('POST', '/api/sessions', '{"query": "secret-text-123", status');
    expect(expectErrorShape(res, 400).message).toBe('Malformed JSON body');
    expect(res.body).not.toContain('secret-text-123');
  });

  it("NUL in a header → 400 in the error shape (through the app, and from Node's HTTP parser on a real socket)", async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/sessions/00000000-0000-4000-8000-000000000000',
      headers: { 'x-api-key': `${tenant.clientKey}${NUL}` },
    });
    expect(expectErrorShape(res, 400).details?.fields).toEqual(['header x-api-key']);

    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET /health HTTP/1.1\r\nHost: localhost\r\nX-Note: a${NUL}b\r\n\r\n`));
      let data = '';
      socket.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(Object.keys(body).every((k) => ERROR_KEYS.has(k))).toBe(true);
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', requestId: expect.any(String) });
  });

  it('fuzz: a few hundred bad bodies for every write endpoint of /docs-json → never a 5xx, always the error shape, nothing written', async () => {
    const doc = (await t.request({ method: 'GET', url: '/docs-json' })).json<{
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>();
    const ids: Record<string, string> = { '/admin/intent-rules/{id}': ruleId, '/admin/case-library/{id}': caseId, '/admin/sessions/{id}/evaluate': sessionId };
    const targets: { method: Method; url: string; props: string[] }[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!['post', 'put', 'patch'].includes(method)) continue;
        const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
        const props = ref ? Object.keys(doc.components.schemas[ref.split('/').pop() as string]?.properties ?? {}) : [];
        const url = path.replace(/\{id\}/, ids[path] ?? '00000000-0000-4000-8000-000000000000');
        targets.push({ method: method.toUpperCase() as Method, url, props: props.length ? props : ['query', 'message', 'name'] });
      }
    }
    expect(targets.length).toBeGreaterThanOrEqual(14);

    const random = prng(20261130);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const deep = (n: number, open: string, close: string, leaf: string) => `${open.repeat(n)}${leaf}${close.repeat(n)}`;
    // Each generator returns raw JSON text holding at least one thing no endpoint may accept.
    const poison: (() => string)[] = [
      () => JSON.stringify(`x${NUL}y`),
      () => JSON.stringify(`${pick(['', 'ab'])}${pick(['\ud800', '\udbff', '\udc00', '\udfff'])}`),
      () => pick(['1e309', '-1e309', '1e400']),
      () => deep(33 + Math.floor(random() * 5000), '[', ']', '1'),
      () => deep(33 + Math.floor(random() * 2000), '{"k":', '}', '0'),
      () => `{"${NUL}":1}`,
      () => `[${JSON.stringify(NUL)}, {"a": ${JSON.stringify('\ud83d')}}]`,
    ];
    const filler: (() => string)[] = [
      () => JSON.stringify('text'),
      () => pick(['1.7e308', '-1', '0', '3.5', '-0']),
      () => pick(['true', 'false', 'null']),
      () => pick(['[]', '{}', '[1,"a",null]', '{"x":{"y":[]}}']),
    ];
    const bodyFor = (props: string[]): string => {
      const keys = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick([...props, 'extra'])))];
      const poisoned = pick(keys);
      const fields = keys.map((k) => `${JSON.stringify(k)}:${k === poisoned ? pick(poison)() : pick(filler)()}`);
      const object = `{${fields.join(',')}}`;
      // Mostly objects; sometimes a top-level array or a bare scalar/null body.
      return pick([object, object, object, object, `[${object}]`, pick(['null', '42', '"x"', 'true'])]);
    };

    const before = await rowCounts();
    const failures: string[] = [];
    let sent = 0;
    for (const target of targets) {
      for (let i = 0; i < 20; i++) {
        const body = bodyFor(target.props);
        const res = await send(target.method, target.url, body);
        sent++;
        let shapeOk = false;
        try {
          const json = res.json<Record<string, unknown>>();
          shapeOk = target.url.startsWith('/v1/')
            ? isOpenAiError(json)
            : Object.keys(json).every((k) => ERROR_KEYS.has(k)) && typeof json.requestId === 'string' && json.statusCode === res.statusCode;
        } catch {
          shapeOk = false;
        }
        if (res.statusCode >= 500 || res.statusCode < 400 || !shapeOk)
          failures.push(`${target.method} ${target.url} ${res.statusCode} ${body.slice(0, 120)} → ${res.body.slice(0, 200)}`);
      }
    }
    expect(sent).toBeGreaterThanOrEqual(280);
    expect(failures).toEqual([]);
    expect(await rowCounts()).toEqual(before);
  }, 60_000);
});
