// @ts-check
/**
 * A focused mutation run: the files given with `--mutate`, tested only by the test files named in
 * MUTATE_TESTS (vitest.mutate.focus.config.ts). For a loaded machine, one file or group at a time:
 *   MUTATE_TESTS=src/sim/resources/messageQueue.test.ts npx stryker run stryker.focus.config.mjs \
 *     --mutate src/sim/resources/messageQueue.ts --incrementalFile reports/mutation/inc-messageQueue.json
 * The score is a lower bound of `npm run mutate`'s (see vitest.mutate.focus.config.ts).
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
import base from './stryker.config.mjs';

export default {
  ...base,
  vitest: { configFile: 'vitest.mutate.focus.config.ts', related: false },
  concurrency: 1,
  dryRunTimeoutMinutes: 30,
  incremental: true,
  reporters: ['clear-text', 'json'],
  // Its own report, so a focused run never overwrites a full run's reports/mutation/mutation.json;
  // `npm run mutate:survivors` reads both and, per source file, counts the newer.
  jsonReporter: { fileName: 'reports/mutation/mutation-focus.json' },
  clearTextReporter: { ...base.clearTextReporter, reportMutants: false },
};
