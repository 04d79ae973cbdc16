// Lint for the whole repository (`npm run lint` = eslint + dependency-cruiser layer rules).
// typescript-eslint's recommended rules; on TypeScript, with type information (the project
// service reads tsconfig.json): the promise rules and rxjs-x's recommended set, since a promise
// nobody awaits and a misused Observable are how records get lost without an error.
import { defineConfig, globalIgnores } from 'eslint/config';
import rxjsX from 'eslint-plugin-rxjs-x';
import tseslint from 'typescript-eslint';

// node:test's describe/it/test return promises the runner itself awaits and reports.
const testRunnerCalls = [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }];

export default defineConfig([
  globalIgnores(['dist/', 'node_modules/', 'coverage/', '.mirrorflow/']),
  {
    files: ['**/*.{ts,mts,cts,js,mjs,cjs}'],
    extends: [tseslint.configs.recommended],
    rules: {
      // `_name` marks a parameter an interface requires but this implementation ignores.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A library boundary may need `any`; say why in an eslint-disable comment on that line.
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['**/*.{ts,mts,cts}'],
    extends: [rxjsX.configs.recommended],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise is awaited, returned, or handed to something that reports its failure: in the
      // product, `void` is not enough (nobody would hear of the rejection).
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false, allowForKnownSafeCalls: testRunnerCalls }],
      '@typescript-eslint/no-misused-promises': 'error',
      // From rxjs-x's strict set: an Observable made and never subscribed is work that silently
      // never happens. (Its no-ignored-error is not on: what it finds are subscriptions to stop
      // signals and timers, which cannot fail.)
      'rxjs-x/no-floating-observables': 'error',
      // These packages are loaded as one bundled file each (scripts/bundle-vendor.mjs): file by
      // file, their ~800 modules were most of the CPU `mirrorflow run` spends before its first
      // request. One name for each, so a process never holds two copies.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...['inversify', 'rxjs', 'rxjs/testing', 'zod', 'yaml', 'winston'].map((name) => ({
              name,
              message: `Import '#${name}': the bundle of it that \`npm run build\` makes (scripts/bundle-vendor.mjs).`,
            })),
            {
              name: '#kafkajs-internal',
              message: "kafkajs's private modules are read only in src/kafka/wire, through kafkajsInternal() of kafkajs-internals.ts.",
            },
            {
              name: 'kafkajs',
              allowTypeImports: true,
              message: "Import kafkajs from src/kafka/kafkajs.ts: it loads kafkajs's bundle (#kafkajs) with mirrorflow's wire modules in it.",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests and the runner talk to the terminal directly.
    files: ['test/**', '**/*.spec.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // In a test process an unhandled rejection fails the test (node:test reports it, and Node
    // ends a script on one), so `void` is enough to start something a test checks later.
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: testRunnerCalls }] },
  },
]);
