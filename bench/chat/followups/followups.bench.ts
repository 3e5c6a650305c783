/**
 * Follow-up questions (issue 24 item 3, docs/chat-clients.md "Conversations that remember"): the labelled set of
 * followups.json (a first question, then a follow-up, and the Debian Reference section that answers the follow-up;
 * README.md beside this file) over the Debian Reference sections (debian-reference.ts), one tenant per language,
 * asked through `POST /ai/knowledge/lookup` (one new session per lookup). Quality only: hit@5 of the follow-up's
 * lookup
 *   - `raw`: the follow-up as sent (what a chat that forgets searches);
 *   - `concat`: the first question and the follow-up, joined (a naive memory);
 *   - `rules`: what the chat's rules search (`rewriteFollowUp(...).search`, libs/chat/src/follow-up-rewrite.ts);
 *   - `rules+domain`: the same, restricted to the domain the first lookup answered from (as the chat does offline).
 * Also hit@5 of the first question (the topic the rules carry), and `rules` by rule.
 * Env: BENCH_DB=postgres|pglite (default postgres), BENCH_DEBIAN_REFERENCE (default /usr/share/debian-reference).
 */
import { randomUUID } from 'node:crypto';
import { rewriteFollowUp, type RewriteRule } from '@arbiter/chat';
import { createApp } from '../../../apps/api/src/create-app.js';
import { benchDb, createTarget, writeResult } from '../../retrieval/common.js';
import { readReference } from './debian-reference.js';
import { readFollowUpSet } from './followup-set.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';

const VARIANTS = ['raw', 'concat', 'rules', 'rules+domain'] as const;
type Variant = (typeof VARIANTS)[number];

interface Counts {
  n: number;
  hit: number;
}
const rate = (c: Counts) => (c.n ? Math.round((1000 * c.hit) / c.n) / 10 : 0);

async function main(): Promise<void> {
  const items = readFollowUpSet();
  const target = await createTarget(benchDb(), 20);
  const app = await createApp({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: target.url,
      ADMIN_TOKEN: ADMIN,
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      DB_POOL_MAX: '8',
      SWAGGER_ENABLED: 'false',
    },
    logLevel: 'error',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = await app.getUrl();
  const report: Record<string, unknown> = { db: target.kind, items: items.length };
  const overall = Object.fromEntries(VARIANTS.map((v) => [v, { n: 0, hit: 0 }])) as Record<Variant, Counts>;
  const misses: Record<string, unknown>[] = [];
  try {
    for (const language of ['en', 'zh'] as const) {
      const sections = readReference(language === 'en' ? 'en' : 'zh-cn');
      const created = await fetch(`${base}/admin/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-followups-${language}` }),
      });
      const tenant = (await created.json()) as { apiKeys: { client: string; operator: string } };
      for (let i = 0; i < sections.length; i += 200) {
        const batch = sections.slice(i, i + 200).map((s) => ({ filePath: `debian-reference/${s.id}`, title: s.title, content: s.content, domain: s.chapter }));
        const res = await fetch(`${base}/admin/knowledge/documents/bulk`, {
          method: 'POST',
          headers: { 'x-api-key': tenant.apiKeys.operator, 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        });
        const body = (await res.json()) as { summary: { failed: number } };
        if (res.status !== 200 || body.summary.failed) throw new Error(`bulk import failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      const lookup = async (query: string, domain?: string) => {
        const res = await fetch(`${base}/ai/knowledge/lookup`, {
          method: 'POST',
          headers: { 'x-api-key': tenant.apiKeys.client, 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId: `bench-${randomUUID()}`, query, topK: 5, ...(domain ? { domain } : {}) }),
        });
        const body = (await res.json()) as { results: { filePath: string }[]; domain: string | null };
        if (res.status !== 200) throw new Error(`lookup ${res.status}: ${JSON.stringify(body)}`);
        return { ids: body.results.map((r) => r.filePath.replace('debian-reference/', '')), domain: body.domain };
      };
      const ids = new Set(sections.map((s) => s.id));
      const mine = items.filter((i) => i.language === language);
      for (const item of mine)
        for (const id of [item.answer, item.firstAnswer]) if (!ids.has(id)) throw new Error(`${item.id}: no section ${id} in ${language}`);
      const counts = Object.fromEntries(VARIANTS.map((v) => [v, { n: 0, hit: 0 }])) as Record<Variant, Counts>;
      const first: Counts = { n: 0, hit: 0 };
      const byRule: Record<string, Counts & { raw: number }> = {};
      for (const item of mine) {
        const firstLookup = await lookup(item.first);
        first.n++;
        if (firstLookup.ids.includes(item.firstAnswer)) first.hit++;
        const prior = { message: item.first, query: item.first, topic: item.first, answer: null, intent: null, domain: firstLookup.domain };
        const rewrite = rewriteFollowUp(item.followUp, [prior]);
        const found: Record<Variant, string[]> = {
          raw: (await lookup(item.followUp)).ids,
          concat: (await lookup(`${item.first} ${item.followUp}`)).ids,
          rules: (await lookup(rewrite.search)).ids,
          'rules+domain': (await lookup(rewrite.search, rewrite.carry.domain ?? undefined)).ids,
        };
        for (const v of VARIANTS) {
          counts[v].n++;
          overall[v].n++;
          if (found[v].includes(item.answer)) {
            counts[v].hit++;
            overall[v].hit++;
          }
        }
        const rule: RewriteRule = rewrite.by;
        byRule[rule] ??= { n: 0, hit: 0, raw: 0 };
        byRule[rule].n++;
        if (found.rules.includes(item.answer)) byRule[rule].hit++;
        if (found.raw.includes(item.answer)) byRule[rule].raw++;
        if (!found.rules.includes(item.answer))
          misses.push({ id: item.id, followUp: item.followUp, by: rule, search: rewrite.search, answer: item.answer, got: found.rules });
      }
      const summary = {
        items: mine.length,
        sections: sections.length,
        firstHitAt5: rate(first),
        hitAt5: Object.fromEntries(VARIANTS.map((v) => [v, rate(counts[v])])),
        byRule: Object.fromEntries(Object.entries(byRule).map(([k, c]) => [k, { n: c.n, rules: rate(c), raw: rate({ n: c.n, hit: c.raw }) }])),
      };
      report[language] = summary;
      console.log(`${language}: ${JSON.stringify(summary)}`);
    }
    report.overall = Object.fromEntries(VARIANTS.map((v) => [v, rate(overall[v])]));
    report.misses = misses;
    console.log(`overall hit@5: ${JSON.stringify(report.overall)} (n=${overall.raw.n})`);
    console.log(`results: ${writeResult('chat-followups', report)}`);
  } finally {
    await app.close();
    await target.close();
  }
}

await main();
