import type { BuildOptions } from 'esbuild';

/** esbuild options shared by every server bundle (add entryPoints and the output). */
export declare const bundleOptions: BuildOptions;

/** The node flags the server runs with (package.json `config.nodeFlags`). */
export declare const nodeFlags: readonly string[];
