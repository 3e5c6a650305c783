/**
 * Cross-language retrieval quality (issue 23 item 2): the Debian Reference's aligned sections
 * (bench/retrieval/parallel-set.ts) loaded twice — once as English documents, once as Chinese ones —
 * through `POST /admin/knowledge/documents/bulk`, and every section title asked through
 * `POST /ai/knowledge/lookup` in both languages: in the documents' language (same-language) and in the
 * other one (cross-language). Reports hit@1 and hit@5 of each, the cross-language hit@5 as a share of
 * the same-language hit@5 (goal >= 60 %), and the share of right cross-language top-1 results graded
 * INSUFFICIENT; MiniSearch (BM25) on the same documents in the same run. Quality numbers only.
 * Env: BENCH_DB=postgres|pglite (default postgres), BENCH_MAX_QUESTIONS (default 200), BENCH_QUESTIONS=held-out (default: the
 * even-numbered sections' titles, the figures reported) | dev (the odd-numbered ones, to look at and tune on; every section
 * is a document either way).
 */
import { randomUUID } from 'node:crypto';
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import MiniSearch from 'minisearch';
import { createApp } from '../../apps/api/src/create-app.js';
import { benchDb, createTarget, writeResult } from './common.js';
import { DEBIAN_REFERENCE_DIR, debianReferenceSections, type ParallelSection } from './parallel-set.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const MAX_QUESTIONS = Number(process.env.BENCH_MAX_QUESTIONS ?? 200);
const jieba = Jieba.withDict(dict);
type Lang = 'en' | 'zh';

interface Rates {
  hitAt1: number;
  hitAt5: number;
  rightInsufficient: number;
  /** Of the lookups whose top result is another section, % not graded INSUFFICIENT (issue 23's strict rate). */
  wrongNotInsufficient: number;
}

function miniSearch(sections: readonly ParallelSection[], lang: Lang): (q: string) => string[] {
  // Chinese needs a segmenter; jieba's search mode also leaves Latin words whole, so it serves both languages.
  const tokenize = (text: string) => jieba.cutForSearch(text, true).filter((t) => t.trim());
  const mini = new MiniSearch<{ id: string; title: string; content: string }>({
    fields: ['title', 'content'],
    tokenize,
    searchOptions: { boost: { title: 2 }, tokenize },
  });
  mini.addAll(sections.map((s) => ({ id: s.id, title: s.chapter[lang], content: s.text[lang] })));
  return (q) =>
    mini
      .search(q)
      .slice(0, 10)
      .map((r) => String(r.id));
}

async function main(): Promise<void> {
  const sections = debianReferenceSections();
  if (!sections) {
    console.error(`Debian Reference not found in ${DEBIAN_REFERENCE_DIR}: apt-get install debian-reference-en debian-reference-zh-cn`);
    process.exit(1);
  }
  // Every other section is asked (deterministic), up to the maximum; all sections are documents. The dev questions
  // are the other half's titles.
  const split = process.env.BENCH_QUESTIONS ?? 'held-out';
  if (split !== 'held-out' && split !== 'dev') throw new Error('BENCH_QUESTIONS must be held-out or dev');
  const asked = sections.filter((_, i) => i % 2 === (split === 'dev' ? 1 : 0)).slice(0, MAX_QUESTIONS);
  console.log(`questions: the ${split} half (${asked.length} section titles)`);
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
  const report: Record<string, unknown>[] = [];
  try {
    for (const docLang of ['en', 'zh'] as const) {
      const created = await fetch(`${base}/admin/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-crosslang-${docLang}` }),
      });
      const tenant = (await created.json()) as { apiKeys: { client: string; operator: string } };
      const documents = sections.map((s) => ({
        filePath: `debref/${s.id}.md`,
        title: s.chapter[docLang],
        content: s.text[docLang],
        domain: 'debian-reference',
      }));
      for (let i = 0; i < documents.length; i += 500) {
        const res = await fetch(`${base}/admin/knowledge/documents/bulk`, {
          method: 'POST',
          headers: { 'x-api-key': tenant.apiKeys.operator, 'content-type': 'application/json' },
          body: JSON.stringify(documents.slice(i, i + 500)),
        });
        const body = (await res.json()) as { summary: { failed: number } };
        if (res.status !== 200 || body.summary.failed) throw new Error(`bulk import failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      const bm25 = miniSearch(sections, docLang);
      const rates: Record<string, { arbiter: Rates; bm25: Omit<Rates, 'rightInsufficient' | 'wrongNotInsufficient'> }> = {};
      for (const askLang of [docLang, docLang === 'en' ? 'zh' : 'en'] as const) {
        let a1 = 0;
        let a5 = 0;
        let b1 = 0;
        let b5 = 0;
        let rightTop = 0;
        let rightInsufficient = 0;
        let wrongTop = 0;
        let wrongAnswered = 0;
        for (const s of asked) {
          const res = await fetch(`${base}/ai/knowledge/lookup`, {
            method: 'POST',
            headers: { 'x-api-key': tenant.apiKeys.client, 'content-type': 'application/json' },
            body: JSON.stringify({ sessionId: `bench-${randomUUID()}`, query: s.title[askLang], topK: 10 }),
          });
          const body = (await res.json()) as { results: { filePath: string }[]; completenessHint: string | null };
          if (res.status !== 200) throw new Error(`lookup ${res.status}: ${JSON.stringify(body)}`);
          const pos = body.results.findIndex((r) => r.filePath === `debref/${s.id}.md`);
          if (pos === 0) {
            a1++;
            rightTop++;
            if (body.completenessHint === 'INSUFFICIENT') rightInsufficient++;
          }
          if (pos !== 0 && body.results.length) {
            wrongTop++;
            if (body.completenessHint !== 'INSUFFICIENT') wrongAnswered++;
          }
          if (pos >= 0 && pos < 5) a5++;
          const bpos = bm25(s.title[askLang]).indexOf(s.id);
          if (process.env.BENCH_TRACE === '1')
            console.log(`TRACE ${docLang}/${askLang} ${s.id} arbiter ${pos} bm25 ${bpos} q=${s.title[askLang]} top=${body.results[0]?.filePath ?? '-'}`);
          if (bpos === 0) b1++;
          if (bpos >= 0 && bpos < 5) b5++;
        }
        const pct = (x: number, n = asked.length) => (n ? (100 * x) / n : 0);
        rates[askLang === docLang ? 'same' : 'cross'] = {
          arbiter: {
            hitAt1: pct(a1),
            hitAt5: pct(a5),
            rightInsufficient: pct(rightInsufficient, rightTop),
            wrongNotInsufficient: pct(wrongAnswered, wrongTop),
          },
          bm25: { hitAt1: pct(b1), hitAt5: pct(b5) },
        };
      }
      const share = (who: 'arbiter' | 'bm25') => (rates.same[who].hitAt5 ? (100 * rates.cross[who].hitAt5) / rates.same[who].hitAt5 : 0);
      const f = (x: number) => x.toFixed(1);
      console.log(
        `Debian Reference, ${docLang} documents (${sections.length}), ${asked.length} section titles asked in each language\n` +
          `  same-language (${docLang}):  arbiter hit@1 ${f(rates.same.arbiter.hitAt1)} hit@5 ${f(rates.same.arbiter.hitAt5)} (right top-1 INSUFFICIENT ${f(rates.same.arbiter.rightInsufficient)} %, wrong top-1 not INSUFFICIENT ${f(rates.same.arbiter.wrongNotInsufficient)} %) | BM25 (MiniSearch) hit@1 ${f(rates.same.bm25.hitAt1)} hit@5 ${f(rates.same.bm25.hitAt5)}\n` +
          `  cross-language:         arbiter hit@1 ${f(rates.cross.arbiter.hitAt1)} hit@5 ${f(rates.cross.arbiter.hitAt5)} (right top-1 INSUFFICIENT ${f(rates.cross.arbiter.rightInsufficient)} %, wrong top-1 not INSUFFICIENT ${f(rates.cross.arbiter.wrongNotInsufficient)} %) | BM25 (MiniSearch) hit@1 ${f(rates.cross.bm25.hitAt1)} hit@5 ${f(rates.cross.bm25.hitAt5)}\n` +
          `  cross-language hit@5 as a share of same-language hit@5: arbiter ${f(share('arbiter'))} % (goal >= 60) | BM25 ${f(share('bm25'))} %`,
      );
      report.push({
        documents: docLang,
        sections: sections.length,
        questions: asked.length,
        ...rates,
        share: { arbiter: share('arbiter'), bm25: share('bm25') },
      });
    }
    console.log(`results: ${writeResult('retrieval-crosslang', { db: target.kind, split, report })}`);
  } finally {
    await app.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
