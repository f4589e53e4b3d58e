// Transpiles the server into one ESM file, so a start loads plain JavaScript instead of compiling
// TypeScript on the fly: cold start matters for restarts. The source map is written for
// `node --enable-source-maps` (TypeScript positions in stack traces, at ~7 MB more RSS).
import { build } from 'esbuild';
import { bundleOptions } from './bundle.mjs';

await build({ ...bundleOptions, entryPoints: ['src/server.ts'], outdir: 'dist', sourcemap: true });
