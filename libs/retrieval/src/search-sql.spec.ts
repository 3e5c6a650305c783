import { describe, expect, it } from '@jest/globals';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { asTenantId } from '@arbiter/common';
import { metadataCondition, vectorDistance, fileNameOf } from './search-sql.js';

/** Compiles fragments as the PostgreSQL dialect numbers them, without a database. */
const compiler = new Kysely<object>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe('search SQL fragments', () => {
  it('a metadata filter: one OR group per key joined by AND, each containment document a jsonb parameter', () => {
    const condition = metadataCondition({ model: ['A', 'B'], lang: 'en' }, 'fd');
    expect(condition).not.toBeNull();
    const compiled = condition!.compile(compiler);
    expect(compiled.sql).toBe(
      '(fd.metadata @> $1::jsonb OR fd.metadata @> $2::jsonb) AND (fd.metadata @> $3::jsonb OR fd.metadata @> $4::jsonb OR fd.metadata @> $5::jsonb OR fd.metadata @> $6::jsonb)',
    );
    expect(compiled.parameters).toEqual(['{"lang":"en"}', '{"lang":["en"]}', '{"model":"A"}', '{"model":["A"]}', '{"model":"B"}', '{"model":["B"]}']);
  });

  it.each([undefined, {}])('no condition for the empty filter (%p)', (filter) => {
    expect(metadataCondition(filter, 'fd')).toBeNull();
  });

  it('the distance inlines the dimension (the partial index predicate) and passes the vector as a parameter', () => {
    const compiled = vectorDistance(3, [1, 0, 0]).compile(compiler);
    expect(compiled.sql).toBe('(c.embedding::vector(3)) <-> $1::vector(3)');
    expect(compiled.parameters).toEqual(['[1,0,0]']);
    expect(() => vectorDistance(5000, [])).toThrow(RangeError);
  });

  it("a document's file name is read within the tenant", () => {
    const tenant = asTenantId('00000000-0000-4000-8000-000000000001');
    const compiled = fileNameOf(tenant).compile(compiler);
    expect(compiled.sql).toBe('(SELECT f.file_name FROM knowledge_file f WHERE f.tenant_id = $1 AND f.id = d.file_id)');
    expect(compiled.parameters).toEqual([tenant]);
  });
});
