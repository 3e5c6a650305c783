import pg from 'pg';

/** Small helpers shared by the HTTP benchmarks (chat, replicas). */

/** `url` with its database name replaced. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** One JSON request; the body parsed. */
export async function http<T>(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as T };
}

/** Drops a benchmark's database (connections forced closed). */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const drop = new pg.Client({ connectionString: adminUrl });
  await drop.connect();
  await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await drop.end();
}
