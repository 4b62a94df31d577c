/**
 * `npm run explore -- <preset-id | path/to/scenario.json> [--fixed] [--max-faults N] [--budget-ms T] [--seed S] [--json] [--base-url URL]`
 *
 * "Break my design" from the command line (a design check in CI): searches the fault schedules of
 * the scenario (`searchFaults`, src/sim/search) — its own faults set aside — and prints the
 * shortest schedule that breaks an invariant, as a scenario file and a link, or how far it looked.
 * Exit codes: 1 a counterexample was found; 0 none within the bound (every schedule of up to N
 * faults of the kinds that apply); 2 bad input (with a message naming it); 3 the time budget ran
 * out before the bound was covered (nothing found in what was tried).
 * `--json` prints `{ bound, kinds, tried, distinct, elapsedMs, complete, seed, counterexample? }`.
 */
import { searchFaults, type SearchResult } from '../sim/search/search';
import { describeFault } from '../sim';
import { encodeShare, shareFromScenario } from '../share/link';
import { InputError, loadScenario } from './simulate';

/** Parsed command line. */
export interface ExploreArgs {
  target: string | null;
  fixed: boolean;
  json: boolean;
  maxFaults: number;
  budgetMs: number | null;
  seed: number;
  baseUrl: string;
}

function intArg(name: string, raw: string | undefined, min: number, max: number): number {
  const n = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new InputError(`${name} needs a whole number from ${min} to ${max}, got ${raw === undefined ? 'nothing' : `"${raw}"`}`);
  }
  return n;
}

/** Parses argv (without node and the script). Throws InputError on unknown or bad flags. */
export function parseExploreArgs(argv: readonly string[]): ExploreArgs {
  const args: ExploreArgs = { target: null, fixed: false, json: false, maxFaults: 2, budgetMs: null, seed: 1, baseUrl: 'http://localhost:5173/' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--fixed') args.fixed = true;
    else if (flag === '--json') args.json = true;
    else if (flag === '--max-faults') args.maxFaults = intArg('--max-faults', value(), 1, 3);
    else if (flag === '--budget-ms') args.budgetMs = intArg('--budget-ms', value(), 1, 3_600_000);
    else if (flag === '--seed') args.seed = intArg('--seed', value(), 0, 2 ** 31 - 1);
    else if (flag === '--base-url') args.baseUrl = value() ?? '';
    else if (a.startsWith('-')) throw new InputError(`unknown option ${a} (expected --fixed, --max-faults N, --budget-ms T, --seed S, --json or --base-url URL)`);
    else if (args.target === null) args.target = a;
    else throw new InputError(`unexpected argument ${a}: give one preset id or one scenario file`);
  }
  return args;
}

/** The exit code of a search result (see the module comment). */
export function exitCodeOf(r: SearchResult): 0 | 1 | 3 {
  if (r.counterexample) return 1;
  return r.complete ? 0 : 3;
}

/** Runs the CLI; returns the exit code. */
export function main(argv: readonly string[], out: (s: string) => void = console.log, err: (s: string) => void = console.error): number {
  try {
    const args = parseExploreArgs(argv);
    if (args.target === null) throw new InputError('give a preset id or a scenario file (npm run simulate -- --list lists presets)');
    const scenario = loadScenario(args.target, args.fixed);
    const started = performance.now();
    const deadline = args.budgetMs === null ? Infinity : started + args.budgetMs;
    const r = searchFaults(scenario, {
      maxFaults: args.maxFaults,
      seed: args.seed,
      maxRuns: Number.MAX_SAFE_INTEGER,
      randomRuns: args.budgetMs === null ? 0 : Number.MAX_SAFE_INTEGER,
      shouldStop: () => performance.now() >= deadline,
    });
    const elapsedMs = Math.round(performance.now() - started);
    const ce = r.counterexample;
    const link = ce ? `${args.baseUrl}#${encodeShare(shareFromScenario(ce.scenario))}` : null;
    if (args.json) {
      out(JSON.stringify({
        bound: r.maxFaults, kinds: r.kinds, tried: r.tried, distinct: r.distinct, elapsedMs, complete: r.complete, seed: r.seed,
        ...(ce ? { counterexample: { faults: ce.faults, violations: ce.violations.map((v) => ({ invariant: v.invariant, message: v.message, eventIds: v.eventIds })), random: ce.random, scenario: ce.scenario, link } } : {}),
      }, null, 2));
      return exitCodeOf(r);
    }
    const head = `${scenario.title}${scenario.id ? ` (${scenario.id}${args.fixed ? ', with the fix' : ''})` : ''}: ${r.tried} schedules tried (${r.distinct} distinct traces) of ≤ ${r.maxFaults} faults of ${r.kinds.join(', ')} in ${elapsedMs} ms`;
    out(head);
    if (ce) {
      out(ce.faults.length === 0 ? '\nBroken with no fault at all:' : `\nBroken with ${ce.faults.length} fault${ce.faults.length === 1 ? '' : 's'}${ce.random ? ` (random search, seed ${r.seed})` : ''}:`);
      for (const f of ce.faults) out(`  - ${describeFault(f, ce.scenario)}`);
      for (const v of ce.violations) out(`  ✗ ${v.invariant}: ${v.message} [${v.eventIds.join(', ')}]`);
      out(`\nOpen it: ${link ?? ''}`);
      out('\nAs a scenario file:');
      out(JSON.stringify(ce.scenario, null, 2));
    } else if (r.complete) {
      out(`\nNo violation with ≤ ${r.maxFaults} faults of these kinds (every schedule of the ${r.candidates} fault placements tried).`);
      if (r.inconclusive > 0) out(`But ${r.inconclusive} of those runs ${r.inconclusive === 1 ? 'was' : 'were'} cut short (the horizon came while a worker was still at its job, or the event limit) and prove nothing: lengthen the horizon and search again.`);
    } else {
      out(`\nNothing found, but the budget ran out before every schedule of ≤ ${r.maxFaults} faults was tried (${r.tried} of ${r.total}, then ${r.randomTried} random schedules, seed ${r.seed}).`);
    }
    return exitCodeOf(r);
  } catch (e) {
    if (e instanceof InputError) {
      err(`error: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

const invokedDirectly = process.argv[1]?.endsWith('explore.ts') || process.argv[1]?.endsWith('explore.js');
if (invokedDirectly) process.exitCode = main(process.argv.slice(2));
