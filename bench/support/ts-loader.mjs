// Minimal ESM loader so benchmarks and test child processes run the TypeScript sources directly (no
// build, no dist/): `@arbiter/<lib>` is the npm workspace package libs/<lib>, resolved through its
// "arbiter-source" export (src/index.ts); `./x.js` → `./x.ts` when that exists; .ts compiled by SWC.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { transformSync } from '@swc/core';

const SOURCE_CONDITION = 'arbiter-source';

export async function resolve(specifier, context, next) {
  if ((specifier.startsWith('./') || specifier.startsWith('../')) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const candidate = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true };
  }
  return next(specifier, context.conditions.includes(SOURCE_CONDITION) ? context : { ...context, conditions: [SOURCE_CONDITION, ...context.conditions] });
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = readFileSync(fileURLToPath(url), 'utf8');
  const { code } = transformSync(source, {
    filename: fileURLToPath(url),
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
