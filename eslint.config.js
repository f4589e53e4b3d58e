import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import local from './eslint/module-boundaries.js';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'docs/', 'dist/', 'bench/results/', '.tmp-*/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
    },
  },
  {
    // Modules and the composition root import a module only through its index.ts; tests may reach
    // a module's internals to test them.
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { local },
    rules: { 'local/module-boundaries': 'error' },
  },
  {
    // node:test's it() and describe() return promises the runner itself awaits.
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      // Without a message, a failing assert.ok rebuilds one by re-reading the transpiled call site,
      // which under tsx can spin for minutes instead of failing.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='assert'][callee.property.name='ok'][arguments.length<2]",
          message: 'Give assert.ok a message.',
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // Plain Node scripts (the example bots, launchers).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
