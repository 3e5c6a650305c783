import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

// The console is served by the API at /console (docs/console.md); the build lands in dist/console.
export default defineConfig({
  root: here,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    reportCompressedSize: false,
    rolldownOptions: {
      // TanStack Query marks its hooks "use client" for React Server Components; a single-page app has none.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
