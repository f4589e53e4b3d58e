// The module rules of docs/ARCHITECTURE.md, checked: the lint rule that keeps modules behind their
// index.ts catches a violation, no module imports another in a cycle, each surface says what its
// module owns, no module opens a transaction beside the unit of work, and SQL sits in repo files.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Linter } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import local from '../eslint/module-boundaries.js';

const MODULES = resolve('src/modules');
const linter = new Linter({ configType: 'flat' });
// The parser the project lints with, so TypeScript-only forms (import type, import('x').T) are seen.
const config = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { local },
    rules: { 'local/module-boundaries': 'error' as const },
  },
];

function lint(file: string, code: string): string[] {
  return linter.verify(code, config, { filename: resolve(file) }).map((m) => m.message);
}

describe('module boundaries (eslint/module-boundaries.js)', () => {
  it('refuses a cross-module import of a private file, from a module and from the composition root', () => {
    assert.deepEqual(lint('src/modules/groups/service.ts', "import { findUser } from '../users/repo.js';\n"), [
      "'repo.js' is private to the users module: import it from 'users/index.js', its public surface.",
    ]);
    assert.deepEqual(lint('src/app.ts', "export { userRoutes } from './modules/users/routes.js';\n"), [
      "'routes.js' is private to the users module: import it from 'users/index.js', its public surface.",
    ]);
    assert.equal(lint('src/modules/telegram/methods/x.ts', "import '../../messaging/richtext/html.js';\n").length, 1);
  });

  it('refuses the TypeScript and dynamic forms too: import type, import types, export *, import()', () => {
    for (const code of [
      "import type { UserRow } from '../users/repo.js';",
      "type Row = import('../users/repo.js').UserRow;",
      "export * from '../users/repo.js';",
      'const repo = await import(`../users/repo.js`);',
    ]) {
      assert.equal(lint('src/modules/groups/service.ts', `${code}\n`).length, 1, code);
    }
  });

  it("allows a module's index.js, a module's own files and everything outside src/modules", () => {
    const code = [
      "import { findUser } from '../users/index.js';",
      "import { helper } from './repo.js';",
      "import { sub } from '../groups/../groups/index.js';",
      "import { db } from '../../db/connect.js';",
      "import { other } from 'kysely';",
    ].join('\n');
    assert.deepEqual(lint('src/modules/groups/service.ts', `${code}\n`), []);
    assert.deepEqual(lint('src/modules/telegram/methods/x.ts', "import { a } from '../repo.js';\n"), []);
  });
});

/** The source files under `dir`, at any depth. */
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? walk(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );

/** Every module another module imports (type-only imports included), from each file's import lines. */
function moduleGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of walk(MODULES)) {
    const from = relative(MODULES, file).split('/')[0] ?? '';
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = relative(MODULES, resolve(dirname(file), ref.fileName));
      const to = target.startsWith('..') ? undefined : target.split('/')[0];
      if (to !== undefined && to !== from && !edges.has(to)) edges.set(to, relative('.', file));
    }
  }
  return graph;
}

/** A cycle of modules as "a -> b (file) -> ... -> a", or undefined. */
function findCycle(graph: Map<string, Map<string, string>>): string | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (m: string): string | undefined => {
    if (state.get(m) === 'done') return undefined;
    if (state.get(m) === 'open') return [...path.slice(path.indexOf(m)), m].join(' -> ');
    state.set(m, 'open');
    path.push(m);
    for (const to of graph.get(m)?.keys() ?? []) {
      const found = visit(to);
      if (found !== undefined) return found;
    }
    path.pop();
    state.set(m, 'done');
    return undefined;
  };
  for (const m of graph.keys()) {
    const found = visit(m);
    if (found !== undefined) return found;
  }
  return undefined;
}

describe('the module graph', () => {
  it('has no cycles between modules', () => {
    assert.equal(findCycle(moduleGraph()), undefined);
  });

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const graph = moduleGraph();
    // payments imports users; users importing payments closes a cycle.
    graph.get('users')?.set('payments', 'test');
    assert.match(findCycle(graph) ?? '', /users -> payments -> .*users$/);
  });

  it('gives every module an index.ts whose first line says what the module owns', () => {
    for (const name of readdirSync(MODULES)) {
      const first = readFileSync(join(MODULES, name, 'index.ts'), 'utf8').split('\n')[0] ?? '';
      assert.match(first, new RegExp(`^// ${name} owns \\S`), `src/modules/${name}/index.ts`);
    }
  });
});

describe('one way to run a write', () => {
  it('opens no transaction in src/modules: every write runs through the unit of work (src/db/work.ts)', () => {
    const opening = walk(MODULES)
      .filter((file) => readFileSync(file, 'utf8').includes('.transaction()'))
      .map((file) => relative('.', file));
    assert.deepEqual(opening, []);
  });
});

describe('SQL in repo files', () => {
  /** Query-builder calls and SQL templates: what a file holding SQL has, and a rules file must not. */
  const SQL =
    /\.(selectFrom|selectNoFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<[^>]*>)?`|CompiledQuery\.raw/;
  /** repo.ts, a batch-repo.ts and the statements compiled once for hot reads (reads.ts). */
  const SQL_FILE = /\/(repo|[a-z-]+-repo|reads)\.ts$/;
  const KNOWN = new Set([
    // Runs the set-based statements the repos define (their SQL stays in the repos).
    'src/modules/events/rows.ts',
    // Still to move into their repos, with the rework of these modules under way.
    'src/modules/messaging/numbers.ts',
  ]);

  it('keeps SQL in repo.ts, batch-repo.ts and reads.ts files of src/modules', () => {
    const elsewhere = walk(MODULES)
      .filter((file) => !SQL_FILE.test(file) && SQL.test(readFileSync(file, 'utf8')))
      .map((file) => relative('.', file))
      .filter((file) => !KNOWN.has(file));
    assert.deepEqual(elsewhere, []);
  });
});
