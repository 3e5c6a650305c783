// Writes .br and .gz next to each built text asset of the console, so @fastify/static serves them pre-compressed
// (no compression work on the API's event loop; docs/console.md "Serving").
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = path.resolve(process.argv[2] ?? 'dist/console');
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;
let files = 0;
for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue;
  const file = path.join(entry.parentPath, entry.name);
  const content = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  files += 1;
}
process.stdout.write(`console: ${files} assets pre-compressed in ${path.relative(process.cwd(), root) || '.'}\n`);
