// @ts-check
/**
 * Mutation testing of the simulation core (`npm run mutate`; `npm run mutate:quick` re-tests only
 * what changed since the last run). Not part of CI: a full run of the ~9,800 mutants takes about
 * 3.5 hours on the shared 2 cores (each mutant costs one Vitest run of the test files that cover
 * it: ~1 s for a `resources` mutant, ~3.5 s for one in `workers/steps.ts`, which
 * most tests cover; measured on 5 December 2026, see docs/mutation-score.md).
 * MUTATE_SHARD=resources|invariants|workers mutates one folder and keeps its own report and
 * incremental file (reports/mutation/mutation-<shard>.json), so a long run can be done a folder
 * at a time (`npm run mutate:shards`) and a stopped one loses one shard at most; `npm run mutate:survivors` reads every report there.
 * Equivalent mutants that survive on purpose are listed in docs/mutation-survivors.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const SHARDS = ['resources', 'invariants', 'workers'];
const shard = process.env.MUTATE_SHARD ?? '';
if (shard !== '' && !SHARDS.includes(shard)) throw new Error(`MUTATE_SHARD must be one of ${SHARDS.join(', ')} (got "${shard}")`);
const reportName = shard === '' ? 'mutation' : `mutation-${shard}`;

export default {
  testRunner: 'vitest',
  // Only the simulation's own tests (node environment); the UI tests (jsdom) would slow every mutant down.
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  mutate: [...(shard === '' ? SHARDS : [shard]).map((folder) => `src/sim/${folder}/**/*.ts`), '!src/sim/**/*.test.ts'],
  // The sandbox is a copy of the project: leave out what no sim test reads (fidelity/ stays:
  // transcript.test.ts imports its preset replay). Other runs' sandboxes (`.stryker-tmp-*`, a focused
  // run's own tempDirName) too: copying one while its run deletes it fails this run (ENOENT).
  ignorePatterns: ['dist', 'docs', 'e2e', 'bench', 'public', 'playwright-report', 'test-results', 'reports', '.stryker-tmp*'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants such as the worker machine's definition) are tested too:
  // Stryker reloads the test environment for each, so they are slow but measured correctly.
  ignoreStatic: false,
  // The machine is shared (2 cores): one or two test runners at a time.
  concurrency: 2,
  timeoutMS: 10000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  incrementalFile: `reports/mutation/${shard === '' ? 'incremental' : `incremental-${shard}`}.json`,
  thresholds: { high: 90, low: 80, break: null },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
