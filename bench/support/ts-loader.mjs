// Minimal ESM loader so benchmarks run the TypeScript sources directly (no build, no dist/):
// `@arbiter/<lib>` → libs/<lib>/src/index.ts, `./x.js` → `./x.ts` when that exists, .ts compiled by SWC.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import path from 'node:path';
import { transformSync } from '@swc/core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function resolve(specifier, context, next) {
  const alias = /^@arbiter\/([a-z-]+)$/.exec(specifier);
  if (alias) return { url: pathToFileURL(path.join(root, 'libs', alias[1], 'src', 'index.ts')).href, shortCircuit: true };
  if ((specifier.startsWith('./') || specifier.startsWith('../')) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const candidate = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true };
  }
  return next(specifier, context);
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
