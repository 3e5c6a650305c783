import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description?: string }>;
  tags?: string[];
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
    schemas: Record<string, { properties?: Record<string, unknown> }>;
  };
}

const PUBLIC_PATHS = new Set(['/health', '/metrics']);

describe('OpenAPI document (/docs-json)', () => {
  let t: TestApp;
  let doc: OpenApi;
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.request({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    doc = res.json<OpenApi>();
  });
  afterAll(async () => {
    await t.close();
  });

  it('declares the API-key and admin bearer schemes', () => {
    expect(doc.components.securitySchemes['api-key']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.components.securitySchemes['admin-token']).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('puts a security requirement on every non-public operation, and a tag and success response on all', () => {
    const problems: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (!PUBLIC_PATHS.has(path) && !op.security?.length) problems.push(`${name}: no security`);
        if (!op.tags?.length) problems.push(`${name}: no tag`);
        if (!Object.keys(op.responses).some((code) => code.startsWith('2'))) problems.push(`${name}: no 2xx response documented`);
      }
    }
    expect(problems).toEqual([]);
  });

  /**
   * A schema with properties or items (through its `$ref`), or alternatives (`oneOf`: the bulk bodies' array,
   * `{documents}` and NDJSON text) each documented so, a text alternative by its description.
   */
  function documented(schema: unknown): boolean {
    if (!schema || typeof schema !== 'object') return false;
    const s = schema as { $ref?: string; properties?: unknown; items?: unknown; oneOf?: unknown[]; type?: string; description?: string };
    const ref = s.$ref?.split('/').pop();
    if (ref) return documented(doc.components.schemas[ref]);
    if (s.oneOf) return s.oneOf.length > 0 && s.oneOf.every((alternative) => documented(alternative));
    return 'properties' in s || 'items' in s || (s.type === 'string' && Boolean(s.description));
  }

  it('documents every request body as a schema with properties', () => {
    const problems: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!op.requestBody) continue;
        // JSON bodies, and the multipart file upload's form (docs/documents.md "Upload").
        const schema = (op.requestBody.content['application/json'] ?? op.requestBody.content['multipart/form-data'])?.schema;
        if (!documented(schema)) problems.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("documents the decision reasons of the current contract (fusion_fallback, not the retired semantic_fallback; the chat's clarify_resolved)", () => {
    const reason = doc.components.schemas['RouteResultDto']?.properties?.['decisionReason'] as { enum: string[]; description: string };
    expect(reason.enum).toEqual(['rule_high_confidence', 'semantic_override', 'no_match', 'llm_judge', 'fusion_fallback', 'clarify_resolved']);
    expect(reason.description).toMatch(/semantic_fallback/);
    expect(reason.description).toMatch(/clarify_resolved/);
  });

  it('documents each chat confidence by name, and what `confidence` means', () => {
    const props = doc.components.schemas['ChatResponseDto']?.properties as Record<string, { description?: string; nullable?: boolean }>;
    for (const name of ['confidence', 'routingConfidence', 'retrievalConfidence', 'answerConfidence']) expect(props[name]?.description).toBeTruthy();
    expect(props['retrievalConfidence']?.nullable).toBe(true);
    expect(props['answerConfidence']?.nullable).toBe(true);
    expect(props['confidence']?.description).toMatch(/not-found exit 0/);
  });

  it('serves the Swagger UI at /docs', async () => {
    const res = await t.request({ method: 'GET', url: '/docs' });
    expect([200, 301, 302]).toContain(res.statusCode);
  });
});
