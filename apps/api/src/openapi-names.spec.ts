import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

// @nestjs/swagger names a schema after its class: two DTO classes with one name silently become one
// schema in /docs-json, and the console's generated client (docs/console.md) gets the wrong type.
function dtoClassNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.includes('.spec.') && !entry.name.includes('.int-spec.'))
    .flatMap((entry) =>
      [...readFileSync(path.join(entry.parentPath, entry.name), 'utf8').matchAll(/^(?:export )?(?:abstract )?class (\w+Dto)\b/gm)].map((m) => m[1]),
    );
}

describe('OpenAPI schema names', () => {
  it('no two DTO classes of the API share a name', () => {
    const names = dtoClassNames(path.resolve('libs'));
    expect(names.length).toBeGreaterThan(50);
    const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
    expect(duplicates).toEqual([]);
  });
});
