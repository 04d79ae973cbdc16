// Lint for the whole repository (`npm run lint` = eslint + dependency-cruiser layer rules).
// typescript-eslint's recommended rules, without type information so lint stays fast and does
// not depend on a successful build.
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

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
    // Tests and the runner talk to the terminal directly.
    files: ['test/**', '**/*.spec.ts'],
    rules: { 'no-console': 'off' },
  },
]);
