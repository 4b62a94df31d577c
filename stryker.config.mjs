// @ts-check
/**
 * Mutation testing of the simulation core (`npm run mutate`; `npm run mutate:quick` re-tests only
 * what changed since the last run). Not part of CI: a full run takes tens of minutes on 2 cores.
 * Equivalent mutants that survive on purpose are listed in docs/mutation-survivors.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  // Only the simulation's own tests (node environment); the UI tests (jsdom) would slow every mutant down.
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  mutate: [
    'src/sim/resources/**/*.ts',
    'src/sim/invariants/**/*.ts',
    'src/sim/workers/**/*.ts',
    '!src/sim/**/*.test.ts',
  ],
  // The sandbox is a copy of the project: leave out what no sim test reads.
  ignorePatterns: ['dist', 'docs', 'e2e', 'bench', 'fidelity', 'public', 'playwright-report', 'test-results', 'reports'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants such as the worker machine's definition) are tested too:
  // Stryker reloads the test environment for each, so they are slow but measured correctly.
  ignoreStatic: false,
  // The machine is shared (2 cores): one or two test runners at a time.
  concurrency: 2,
  timeoutMS: 10000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  incrementalFile: 'reports/mutation/incremental.json',
  thresholds: { high: 90, low: 80, break: null },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
