import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const forbiddenInSim = {
  paths: [
    { name: 'react', message: 'src/sim is pure: no React.' },
    { name: 'react-dom', message: 'src/sim is pure: no React.' },
    { name: 'd3', message: 'src/sim is pure: no d3.' },
    { name: 'zustand', message: 'src/sim is pure: no UI state.' },
  ],
  patterns: [
    { group: ['**/ui/**', 'd3-*', 'react-*'], message: 'src/sim imports nothing from the UI.' },
  ],
};

/**
 * A simulation run while Vitest collects a test file (at its top level or in a describe body) is
 * no test's coverage: StrykerJS then counts every mutant the run reaches as static, and tests each
 * of those with a reload and the whole suite (`npm run mutate` ran 44 % slower for one such run).
 * Run inside the test (or a function a test calls).
 */
const RUNS = "/^(runScenario|run[A-Z][A-Za-z]*|buildTranscript|simulate[A-Za-z]*)$/";
const collectTimeRun = ['Program', "CallExpression[callee.name='describe'] > ArrowFunctionExpression > BlockStatement"].flatMap((scope) =>
  ['', ' > CallExpression', ' > MemberExpression', ' > MemberExpression > CallExpression', ' > TSNonNullExpression > MemberExpression', ' > CallExpression > CallExpression'].map((via) => ({
    selector: `${scope} > VariableDeclaration > VariableDeclarator${via} > CallExpression[callee.name=${RUNS}]`,
    message: 'No simulation while Vitest collects: run it inside the test (see eslint.config.js, collectTimeRun).',
  })));

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'playwright-report', 'test-results', 'reports', '.stryker-tmp*', '.bench'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests mutate hand-made bad input on purpose.
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/sim/**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...collectTimeRun] },
  },
  {
    // The simulation core is deterministic: virtual time only, randomness only from the seed.
    files: ['src/sim/**/*.ts'],
    ignores: ['src/sim/**/*.test.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': ['error', forbiddenInSim],
      'no-restricted-globals': ['error',
        { name: 'window', message: 'src/sim has no DOM.' },
        { name: 'document', message: 'src/sim has no DOM.' },
        { name: 'setTimeout', message: 'src/sim uses virtual time only.' },
        { name: 'setInterval', message: 'src/sim uses virtual time only.' },
        { name: 'performance', message: 'src/sim uses virtual time only.' },
        { name: 'crypto', message: 'src/sim draws randomness from the scenario seed.' },
      ],
      'no-restricted-properties': ['error',
        { object: 'Math', property: 'random', message: 'Use the scenario seed (src/sim/engine/rng.ts).' },
        { object: 'Date', property: 'now', message: 'Use virtual time (nowMs).' },
      ],
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Date']", message: 'Use virtual time (nowMs).' },
      ],
    },
  },
);
