/**
 * `bench:limits` (issue 25 item 3): the cost of rate limiting. Route (`POST /ai/intent/route`) and chat
 * (`POST /ai/chat`, offline) throughput with limits off (the default: nothing counted) and on (per-key
 * and per-tenant limits set far above the load, so every request is counted and none refused), in the
 * same run against the same API, phases alternating off/on/off/on. Bar: on ≥ 95 % of off.
 *
 * The API runs in this process (`createApp`, on an embedded database or a PostgreSQL database,
 * `DATABASE_URL` set, so counting uses the shared table's leases as replicas would); the load generator
 * (autocannon) runs in a child process of its own per phase (`--load`).
 * Env: BENCH_DB (pglite | postgres | both; default both), BENCH_SECONDS (10 a phase), BENCH_CONNECTIONS (8).
 * Run: npm run bench:limits
 */
import { createRequire } from 'node:module';
import { DEMO_INTENT_RULES } from '@arbiter/intent';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { benchEntry, runLoadInChild } from '../support/child-load.js';
import { BENCH_ADMIN_TOKEN, startInProcessApi } from '../support/in-process-api.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const kinds = (process.env.BENCH_DB ?? 'both') === 'both' ? ['pglite', 'postgres'] : [process.env.BENCH_DB ?? 'pglite'];
const BAR = 0.95;
const MESSAGES = [
  '机械臂报警 E201 怎么处理？',
  '示教器黑屏怎么办',
  'How do I upgrade the firmware?',
  '怎么申请退款',
  'E202 编码器报警',
  'warranty for the teach pendant',
  '你好',
];
/** Far above what 8 connections reach in a minute: every request counted, none refused. */
const HIGH = 10_000_000;

interface LoadArgs {
  url: string;
  path: string;
  key: string;
  seconds: number;
  connections: number;
  messages: string[];
}
interface LoadResult {
  requests: number;
  rps: number;
  non2xx: number;
  errors: number;
  p95: number;
}

/** The load generator (child process): autocannon for one phase, the result back over IPC. */
async function load(args: LoadArgs): Promise<LoadResult> {
  type Instance = PromiseLike<{ requests: { total: number }; non2xx: number; errors: number; timeouts: number; latency: { p97_5: number; p99: number } }>;
  const autocannon = createRequire(import.meta.url)('autocannon') as (o: Record<string, unknown>) => Instance;
  let i = 0;
  const result = await autocannon({
    url: args.url,
    connections: args.connections,
    duration: args.seconds,
    requests: [
      {
        method: 'POST',
        path: args.path,
        headers: { 'content-type': 'application/json', 'x-api-key': args.key },
        setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify({ message: args.messages[i++ % args.messages.length] }) }),
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: Math.round((result.requests.total / args.seconds) * 10) / 10,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p95: result.latency.p97_5,
  };
}

async function benchOne(kind: string): Promise<Record<string, unknown>> {
  const api = await startInProcessApi({ kind, name: 'limits', poolMax: 10 });
  try {
    const tenant = await api.createTenant(`limits-${kind}`);
    for (const rule of DEMO_INTENT_RULES) await api.call('POST', '/admin/intent-rules', tenant.operator, rule);
    await api.call('POST', '/admin/knowledge/documents/bulk', tenant.operator, DEMO_KNOWLEDGE);
    const key = tenant.client['x-api-key'];
    const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };
    const setLimits = async (on: boolean) => {
      const value = on ? HIGH : null;
      const body = { route: { perMinute: value, perKeyPerMinute: value }, chat: { perMinute: value, perKeyPerMinute: value } };
      const res = await api.call('PUT', `/admin/tenants/${tenant.id}/limits`, admin, body);
      if (res.status !== 200) throw new Error(`limits: ${res.status}`);
    };
    const out: Record<string, unknown> = { db: kind };
    for (const path of ['/ai/intent/route', '/ai/chat']) {
      const phase = async (on: boolean, duration: number) => {
        await setLimits(on);
        const result = await runLoadInChild<LoadArgs, LoadResult>(import.meta.url, {
          url: api.base,
          path,
          key,
          seconds: duration,
          connections,
          messages: MESSAGES,
        });
        // A phase with limits on must show that they were counted (and refused nothing).
        if (on) {
          const probe = await fetch(`${api.base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key },
            body: '{"message":"你好"}',
          });
          if (!probe.headers.get('ratelimit-policy')) throw new Error('limits on, but no RateLimit-Policy header');
        }
        return result;
      };
      await phase(false, Math.max(3, Math.round(seconds / 2)));
      const offs: LoadResult[] = [];
      const ons: LoadResult[] = [];
      for (let round = 0; round < 2; round++) {
        offs.push(await phase(false, seconds));
        ons.push(await phase(true, seconds));
      }
      const mean = (rs: LoadResult[]) => rs.reduce((s, r) => s + r.rps, 0) / rs.length;
      const ratio = Math.round((mean(ons) / mean(offs)) * 1000) / 1000;
      out[path] = { off: offs, on: ons, offRps: Math.round(mean(offs) * 10) / 10, onRps: Math.round(mean(ons) * 10) / 10, ratio, bar: BAR, met: ratio >= BAR };
      process.stdout.write(`${kind} ${path}: off ${mean(offs).toFixed(1)} rps, on ${mean(ons).toFixed(1)} rps, ratio ${ratio} (bar ≥ ${BAR})\n`);
    }
    return out;
  } finally {
    await api.close();
  }
}

async function main(): Promise<void> {
  const results = [];
  for (const kind of kinds) results.push(await benchOne(kind));
  process.stdout.write(`${JSON.stringify({ seconds, connections, results }, null, 2)}\n`);
  process.exit(0);
}

benchEntry(load, main);
