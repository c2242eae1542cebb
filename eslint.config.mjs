import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import jest from 'eslint-plugin-jest';

const GROUND = ['contracts-abi', 'migrations'];
const TOP = ['simulator', 'tools', 'embedded', 'bench', 'test', 'sdk', 'examples'];
const FOLDERS = [...GROUND, 'shared', 'api', 'keeper', 'devnet', ...TOP];
const dir = (folder) => `./${folder}`;
/** Every project folder but these. */
const allBut = (...folders) => FOLDERS.filter((folder) => !folders.includes(folder)).map(dir);

/** The zones of `import-x/no-restricted-paths`: a file of `target` may not import from `from`. */
function layerZones() {
  return [
    {
      target: GROUND.map(dir),
      from: allBut(...GROUND),
      message: 'contracts-abi/ and migrations/ are the ground floor: they import from no other folder.',
    },
    {
      target: './shared',
      from: allBut('shared', ...GROUND),
      message: 'shared/ imports only contracts-abi/ and migrations/: every other folder is above it.',
    },
    {
      target: './api',
      from: allBut('api', 'shared', ...GROUND),
      message: 'api/ is a production process: it imports shared/ and the ground floor only.',
    },
    {
      target: './keeper',
      from: allBut('keeper', 'shared', ...GROUND),
      message: 'keeper/ is a production process: it imports shared/ and the ground floor only.',
    },
    {
      target: './devnet',
      from: TOP.map(dir),
      message:
        'devnet/ is a library of the tests, the tools and the simulator: it imports none of the top floor.',
    },
    {
      target: ['./simulator', './tools', './embedded', './sdk/scripts'],
      from: './test',
      message: 'test/ is imported by tests and benches only.',
    },
    {
      target: './sdk/src',
      from: allBut('sdk'),
      message: "sdk/src is the published SDK: it imports nothing of the project's other folders.",
    },
    {
      target: './examples',
      from: allBut('examples', 'sdk'),
      message: 'examples/ are written as an integrator would: against the SDK only.',
    },
  ];
}

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
      // The floors, each importing only from those below it: contracts-abi and migrations (the ground) ← shared ←
      // api, keeper (the production processes) ← devnet (the test world and its launchers) ← the top floor
      // (simulator, tools, embedded, bench, test, sdk, examples). The production processes never load the devnet
      // nor each other; nothing reaches up. On the top floor, test/ is imported by tests and benches only, the
      // SDK's package (sdk/src) by nothing of the project, and the examples use the SDK alone.
      'import-x/no-restricted-paths': ['error', { zones: layerZones() }],
    },
  },
  {
    // A test must be able to fail: each one asserts (expect, or a helper named expect* / assert*), every expect is
    // awaited or completed, and none is skipped or focused. jest/no-conditional-expect stays off: the property tests
    // assert what holds under each generated case (`if (tick > MIN_TICK) expect(...)`), which is the point of them.
    files: ['test/**/*.ts'],
    plugins: { jest },
    rules: {
      'jest/expect-expect': [
        'error',
        { assertFunctionNames: ['expect', 'expect*', 'assert*', '**.expect*'] },
      ],
      'jest/valid-expect': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/no-focused-tests': 'error',
      'jest/no-identical-title': 'error',
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
