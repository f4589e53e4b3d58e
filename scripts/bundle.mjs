// How the server is bundled, for production (build.mjs) and for the benchmark's servers
// (bench/lib/spawn.ts), so both run the same code the same way. Our sources and the two
// dependencies made of hundreds of small ES modules, Kysely and TypeBox, go into one file: measured
// on an idle server, 5.7 MB less heap and ~10 MB less RSS than loading ~1,000 modules one by one.
// Every other package stays external: native code (better-sqlite3), drivers loaded only when
// configured (pg, ioredis), and CommonJS packages that bundling does not shrink. No external
// package may import TypeBox or Kysely at run time (a second copy would not share TypeBox's
// registries): @fastify/type-provider-typebox is imported for its types only.
import { readFileSync } from 'node:fs';

const inlined = new Set(['kysely', 'typebox']);
const { dependencies, config } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
if (typeof config?.nodeFlags !== 'string') throw new Error('package.json: config.nodeFlags is not a string');

/**
 * The node flags the server runs with (package.json `config.nodeFlags`, spelt out in `npm start`
 * and `npm run serve`), for whatever starts a bundle: the bench's servers and the bundle test.
 */
export const nodeFlags = config.nodeFlags.split(' ').filter(Boolean);

/** esbuild options shared by every server bundle (add entryPoints and the output). */
export const bundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: Object.keys(dependencies).filter((name) => !inlined.has(name)),
  logLevel: 'warning',
};
