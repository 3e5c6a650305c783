/**
 * Placeholders of one SQL statement assembled from fragments of several libs (docs/hot-paths.md,
 * "Chat turn"): each fragment adds its values and gets `$n` back, so the fragments never need to
 * know each other's numbering. Pure: no database.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value; returns its placeholder, with a cast when given (e.g. `jsonb`, `uuid`). */
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ''}`;
  }

  /** A jsonb value (node-pg would send a JS array as a PostgreSQL array, not JSON). */
  json(value: unknown): string {
    return this.add(value === null || value === undefined ? null : JSON.stringify(value), 'jsonb');
  }
}
