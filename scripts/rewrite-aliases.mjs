// Rewrites `@arbiter/<lib>` specifiers in the compiled output to relative paths, since Node does not
// read tsconfig paths. Run after `tsc -p tsconfig.build.json` (outDir dist, rootDir .).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve(process.argv[2] ?? 'dist');
const SPECIFIER = /(from\s+|import\s*\(\s*|import\s+)(['"])@arbiter\/([a-z-]+)\2/g;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else if (name.endsWith('.js')) yield full;
  }
}

let rewritten = 0;
for (const file of files(dist)) {
  const source = readFileSync(file, 'utf8');
  const output = source.replace(SPECIFIER, (_m, lead, quote, lib) => {
    let target = path.relative(path.dirname(file), path.join(dist, 'libs', lib, 'src', 'index.js')).split(path.sep).join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    return `${lead}${quote}${target}${quote}`;
  });
  if (output !== source) {
    writeFileSync(file, output);
    rewritten++;
  }
}
console.log(`rewrite-aliases: ${rewritten} files`);
