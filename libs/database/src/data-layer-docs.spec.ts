import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

type Layer = 'Kysely' | 'TypeORM (moving)' | 'SQL text (moving)';

/** What a repository file runs its SQL on, by what it names (docs/data-layer.md "Where it is used"). */
function layerOf(source: string): Layer {
  if (/DataSource|InjectRepository|EntityManager/.test(source)) return 'TypeORM (moving)';
  if (/from '@arbiter\/database'|from 'kysely'/.test(source)) return 'Kysely';
  return 'SQL text (moving)';
}

function repositoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : repositoryFiles(full);
    return entry.name.endsWith('.repository.ts') ? [full] : [];
  });
}

/** Repository class → layer, as the code says. */
function inCode(): Map<string, Layer> {
  const out = new Map<string, Layer>();
  for (const file of repositoryFiles(path.resolve('libs'))) {
    const source = readFileSync(file, 'utf8');
    const name = /export class (\w+Repository)/.exec(source)?.[1];
    if (!name) throw new Error(`${file} exports no repository class`);
    out.set(name, layerOf(source));
  }
  return out;
}

/** Repository class → layer, as docs/data-layer.md "Where it is used" says. */
function inDocs(): Map<string, string> {
  const doc = readFileSync(path.resolve('docs/data-layer.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Where it is used')) ?? '';
  return new Map([...section.matchAll(/^\|\s*`(\w+Repository)`\s*\|\s*[a-z-]+\s*\|\s*([^|]+?)\s*\|/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('the data layer in the docs', () => {
  it('docs/data-layer.md lists every repository with the layer its code runs on', () => {
    expect(Object.fromEntries([...inDocs()].sort())).toEqual(Object.fromEntries([...inCode()].sort()));
  });

  it.each([
    { source: "import { Database } from '@arbiter/database';", layer: 'Kysely' },
    { source: "import { Database } from '@arbiter/database';\nimport type { EntityManager } from 'typeorm';", layer: 'TypeORM (moving)' },
    { source: 'constructor(private readonly dataSource: DataSource) {}', layer: 'TypeORM (moving)' },
    { source: 'readonly cte = (p) => `SELECT 1 WHERE tenant_id = ${p}`;', layer: 'SQL text (moving)' },
  ])('classifies $layer', ({ source, layer }) => {
    expect(layerOf(source)).toBe(layer);
  });
});
