import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * Named prepared statements for the statements the app runs again and again (docs/hot-paths.md "Prepared
 * statements"): PostgreSQL parses, analyses and — once its plan cache settles on a generic plan — plans such a
 * statement once per connection instead of on every call. A statement is named after it has been seen
 * {@link PreparedStatementPolicy.minUses} times with parameters, so one-off texts (a list of a varying length, an
 * operator's ad-hoc filter) stay unnamed; a connection holds at most {@link PreparedStatementPolicy.maxPerConnection}
 * of them. The name is a hash of the text: the same name always means the same text on every connection, which the
 * embedded database's shared backend relies on (ProtocolQueryQueue).
 */
export interface PreparedStatementPolicy {
  minUses: number;
  maxPerConnection: number;
  /** Texts counted before the count starts over (bounds the counter's memory). */
  maxCountedTexts: number;
}

export const DEFAULT_PREPARED_STATEMENT_POLICY: PreparedStatementPolicy = Object.freeze({ minUses: 3, maxPerConnection: 400, maxCountedTexts: 5000 });

/** The statement name for `text`: `a_` and 30 hex digits of its SHA-256 (within PostgreSQL's 63-byte names). */
export function preparedStatementName(text: string): string {
  return `a_${createHash('sha256').update(text).digest('hex').slice(0, 30)}`;
}

/** Decides, per statement, whether it runs as a named statement; pure apart from its counters. */
export class PreparedStatementNamer {
  private readonly uses = new Map<string, number>();
  private readonly names = new Map<string, string>();

  constructor(private readonly policy: PreparedStatementPolicy = DEFAULT_PREPARED_STATEMENT_POLICY) {}

  /** The name to run `text` under on a connection holding `held` names, or null to run it unnamed. */
  nameFor(text: string, parameterCount: number, held: ReadonlySet<string>): string | null {
    if (parameterCount === 0) return null;
    const known = this.names.get(text);
    if (known) return held.has(known) || held.size < this.policy.maxPerConnection ? known : null;
    const uses = (this.uses.get(text) ?? 0) + 1;
    if (uses < this.policy.minUses) {
      if (uses === 1 && this.uses.size >= this.policy.maxCountedTexts) this.uses.clear();
      this.uses.set(text, uses);
      return null;
    }
    this.uses.delete(text);
    if (this.names.size >= this.policy.maxCountedTexts) return null;
    const name = preparedStatementName(text);
    this.names.set(text, name);
    return held.size < this.policy.maxPerConnection ? name : null;
  }
}

interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
}
type QueryableClient = PostgresPoolClient & { query(config: NamedQuery): ReturnType<PostgresPoolClient['query']> };

/**
 * The pool Kysely is given: its clients run repeated statements as named prepared statements (see
 * {@link PreparedStatementNamer}). Everything else — cursors, statements without parameters, release — passes through.
 */
export function preparingPool(pool: PostgresPool, namer = new PreparedStatementNamer()): PostgresPool {
  const wrapped = new WeakMap<PostgresPoolClient, PostgresPoolClient>();
  const wrap = (client: PostgresPoolClient): PostgresPoolClient => {
    let proxy = wrapped.get(client);
    if (proxy) return proxy;
    const names = new Set<string>();
    proxy = {
      query: ((text: unknown, values?: unknown[]) => {
        if (typeof text === 'string' && Array.isArray(values)) {
          const name = namer.nameFor(text, values.length, names);
          if (name) {
            names.add(name);
            return (client as QueryableClient).query({ name, text, values });
          }
        }
        return (client.query as (...args: unknown[]) => unknown).call(client, text, values);
      }) as PostgresPoolClient['query'],
      release: (destroy?: boolean) => client.release(destroy),
    };
    wrapped.set(client, proxy);
    return proxy;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
