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
      'build/',
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
  // Module boundaries (STYLE §2): a module's tables are reached through its service or read port,
  // never through its repository, from another module or from http/, cli/ and the rest of src/.
  {
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./[^/]+/[^/]+\\.repository\\.js$',
              message: "another module's repository: call its service or read port instead",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '/modules/[^/]+/[^/]+\\.repository\\.js$',
              message: "a module's repository: call its service or read port instead",
            },
          ],
        },
      ],
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
