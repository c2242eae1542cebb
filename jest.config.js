/** Three tiers as separate projects; `npm test` runs them all. Sources run through ts-jest, never from build output. */
// ts-jest transpiles only (isolatedModules); `npm run lint` type-checks the whole tree once.
const transform = { '^.+\\.(t|j)sx?$': ['ts-jest', { diagnostics: false }] };
// p-queue and its dependencies ship ESM only.
const transformIgnorePatterns = ['/node_modules/(?!(p-queue|p-timeout|eventemitter3)/)'];

module.exports = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Global only (jest ignores it per project): e2e tests deploy contracts on in-process chains.
  testTimeout: 60000,
  // e2e files each start ganache chains in-process; a worker that has grown past this is replaced between files,
  // so a long run does not slow down as its heap fills (npm run test:e2e uses two workers, not --runInBand: its files mostly wait on blocks).
  workerIdleMemoryLimit: '900MB',
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
    },
    {
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
    },
  ],
};
