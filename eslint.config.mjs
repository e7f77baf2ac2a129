// ESLint (flat config) with typescript-eslint's type-aware rules. The tooling lives in tools/
// (`npm run lint` installs it), so it is loaded from there.
import { createRequire } from 'node:module';

const require = createRequire(new URL('./tools/package.json', import.meta.url));
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'tools/',
      'clients/typescript/dist/',
      'clients/typescript/src/generated/',
      'var/',
      'models/',
      'bin/',
      'scripts/',
      'console/vite.config.mjs',
      'eslint.config.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Unused arguments named with a leading underscore are intentional (callbacks with fixed signatures).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Fastify plugins are async functions that need not await anything.
      '@typescript-eslint/require-await': 'off',
      // Template literals format numbers and booleans on purpose in messages.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // JSON.parse of our own stored columns is typed at the call site.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // node:test's describe/it return promises the runner awaits itself.
      '@typescript-eslint/no-floating-promises': 'off',
      // Test helpers hand out plain functions (`const { request } = ctx()`), and JSON bodies are read loosely.
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
