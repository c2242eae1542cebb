import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', 'dist/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // Modules that import each other run half-initialized; a cycle is an error wherever it closes. `import type`
    // has no runtime effect and is not followed (the rule's own behaviour).
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    // Packages cannot import our modules back: not following them keeps the lint fast.
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // The layers: shared ← api, keeper ← devnet (the test world, its launchers and the simulation) ← tools and
      // tests. The production processes never load the devnet; shared never reaches up.
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: ['./api', './keeper'],
              from: './devnet',
              message: 'api/ and keeper/ are production code: the devnet imports them, never the other way.',
            },
            {
              target: './shared',
              from: ['./api', './keeper', './devnet', './embedded', './test', './bench'],
              message: 'shared/ is the bottom layer: it imports from no other folder of the project.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The SDK's bin: plain CommonJS, so it starts with no loader in front of it.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['bench/**', '**/cli/**', 'shared/store/migrate-cli.ts'],
    rules: { 'no-console': 'off' },
  },
);
