import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

/** `section` of a Markdown file: the text after `## <title>` up to the next `## `. */
function section(file: string, title: string): string {
  const doc = readFileSync(path.resolve(file), 'utf8');
  const found = doc.split(/^## /m).find((s) => s.startsWith(title));
  if (!found) throw new Error(`${file} has no "## ${title}" section`);
  return found;
}

/** docs/SCALING.md "Tables": `| \`table\` | placement | owner | ...` → table → owner. */
function scalingOwners(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of section('docs/SCALING.md', 'Tables').matchAll(/^\|\s*`([a-z0-9_]+)`\s*\|\s*[a-z]+\s*\|\s*([a-z][a-z-]*)\s*\|/gm)) rows.set(m[1]!, m[2]!);
  return rows;
}

/** docs/CONVENTIONS.md "Table ownership and read models": the first cell's backticked tables → the owner cell. */
function conventionsOwners(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of section('docs/CONVENTIONS.md', 'Table ownership and read models').matchAll(/^\|([^|]+)\|\s*([a-z][a-z-]*)\s*\|/gm)) {
    for (const table of m[1]!.matchAll(/`([a-z0-9_]+)`/g)) {
      if (rows.has(table[1]!)) throw new Error(`docs/CONVENTIONS.md names ${table[1]} twice`);
      rows.set(table[1]!, m[2]!);
    }
  }
  return rows;
}

// docs/CONVENTIONS.md "Table ownership": the ownership table names every table SCALING.md lists (which the
// catalog test keeps equal to the migrated schema), with the same owner lib.
describe('table ownership in the docs', () => {
  it('every table has one owner, the same in docs/CONVENTIONS.md and docs/SCALING.md', () => {
    const conventions = conventionsOwners();
    const mismatched: string[] = [];
    for (const [table, owner] of scalingOwners()) {
      const documented = conventions.get(table);
      if (documented !== owner) mismatched.push(`${table}: SCALING.md ${owner}, CONVENTIONS.md ${documented ?? 'missing'}`);
    }
    expect(mismatched).toEqual([]);
  });

  it('reads both tables', () => {
    expect(scalingOwners().get('intent_fit')).toBe('intent-learning');
    expect(conventionsOwners().get('tenant')).toBe('tenancy');
    // Lib names may have a hyphen.
    expect(scalingOwners().get('case_library')).toBe('case-library');
    expect(conventionsOwners().get('case_library_version')).toBe('case-library');
  });
});
