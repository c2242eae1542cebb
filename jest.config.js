/** Three tiers as separate projects; `npm test` runs them all. Sources run through SWC, never from build output. */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest'] };
// p-queue and its dependencies ship ESM only.
const transformIgnorePatterns = ['/node_modules/(?!(p-queue|p-timeout|eventemitter3)/)'];

module.exports = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
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
