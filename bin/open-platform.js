#!/usr/bin/env node
// `open-platform <command>`: the operator CLI. Unlike `npm run cli`, nothing but the command's
// own output reaches stdout, so `open-platform ledger-check --json > file` holds just the JSON.
import { tsImport } from 'tsx/esm/api';

await tsImport('../src/cli/main.ts', import.meta.url);
