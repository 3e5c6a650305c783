import type { DataSource } from 'typeorm';

export class SchemaDriftError extends Error {
  constructor(readonly statements: string[]) {
    super(
      `The database schema differs from the entities (validate-only: add a migration in migrations/). ` +
        `TypeORM would need:\n${statements.map((s) => `  ${s};`).join('\n')}`,
    );
    this.name = 'SchemaDriftError';
  }
}

/** Returns the statements that would bring the schema in line with the entities; never runs them. */
export async function detectSchemaDrift(dataSource: DataSource): Promise<string[]> {
  const sqlInMemory = await dataSource.driver.createSchemaBuilder().log();
  return sqlInMemory.upQueries.map((q) => q.query.replace(/\s+/g, ' ').trim());
}

export async function assertSchemaInSync(dataSource: DataSource): Promise<void> {
  const drift = await detectSchemaDrift(dataSource);
  if (drift.length) throw new SchemaDriftError(drift);
}
