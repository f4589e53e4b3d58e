// Transpiles the server into one ESM file (dependencies stay external), so a start loads plain
// JavaScript instead of compiling TypeScript on the fly: cold start matters for restarts.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/server.ts'],
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
