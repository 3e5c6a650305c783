import { DEMO_INTENT_RULES } from '@arbiter/intent';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { http } from '../support/bench-http.js';
import { BENCH_ADMIN_TOKEN } from '../support/in-process-api.js';

export interface BenchTenant {
  id: string;
  client: string;
  operator: string;
}

/** `count` tenants made through the API, each with the demo intent rules and knowledge (a few tenants at a time). */
export async function createTenants(base: string, count: number, prefix: string): Promise<BenchTenant[]> {
  const tenants: BenchTenant[] = [];
  const one = async (i: number): Promise<BenchTenant> => {
    const created = await http<{ id: string; apiKeys: { client: string; operator: string } }>(
      base,
      'POST',
      '/admin/tenants',
      { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
      { name: `${prefix}-${i}` },
    );
    if (created.status !== 201) throw new Error(`create tenant: ${created.status} ${JSON.stringify(created.json)}`);
    const op = { 'x-api-key': created.json.apiKeys.operator };
    const rules = await http(base, 'POST', '/admin/intent-rules/bulk', op, { rules: DEMO_INTENT_RULES });
    if (rules.status >= 300) throw new Error(`intent rules: ${rules.status} ${JSON.stringify(rules.json)}`);
    const docs = await http(base, 'POST', '/admin/knowledge/documents/bulk', op, DEMO_KNOWLEDGE);
    if (docs.status >= 300) throw new Error(`knowledge: ${docs.status} ${JSON.stringify(docs.json)}`);
    return { id: created.json.id, client: created.json.apiKeys.client, operator: created.json.apiKeys.operator };
  };
  for (let i = 0; i < count; i += 4) tenants.push(...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, k) => one(i + k)))));
  return tenants;
}
