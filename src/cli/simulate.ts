/**
 * `npm run simulate -- <preset-id | path/to/scenario.json> [--fixed] [--json | --transcript[=<session>]]`
 * `npm run simulate -- --list` · `npm run simulate -- --help`
 *
 * Prints the timeline (time, actor, command, reply, narration) and the verdict. Exit codes
 * (`EXIT`): 0 the invariants held, 1 an invariant was violated, 2 bad input (with a message naming
 * it), 3 inconclusive (the run was cut short — event limit, or the horizon came while a worker was
 * still at its job — before any violation: it proves nothing).
 * `--json` prints one object: { scenario, verdict: { status, held, summary, violations[], notes[], cutShort? }, traceHash, events[], metrics }.
 * `--transcript` prints the run as a transcript to replay on real servers (src/sim/transcript):
 * every psql session and the redis-cli commands in trace order with the expected replies;
 * `--transcript=c1` prints one session's script. An export exits 0 once the text is written, whatever
 * the verdict (a violated run is what the reader replays, not an error of the export); 2 for bad input.
 * Thin over src/sim: all semantics live there.
 */
import { readFileSync } from 'node:fs';
import { PRESETS, findPreset, runScenario, parseScenario, formatErrors, buildTranscript, renderTranscript, renderSessionScript, type RunResult, type Scenario } from '../sim';

/** The exit codes. */
export const EXIT = { held: 0, violated: 1, badInput: 2, inconclusive: 3 } as const;

/** What `--help` prints. */
export const USAGE = `usage: npm run simulate -- <preset-id | path/to/scenario.json> [--fixed] [--json | --transcript[=<session>]]
       npm run simulate -- --list | --help

  --fixed        the preset's variant with the fix
  --json         one JSON object: scenario, verdict, traceHash, events, metrics
  --transcript   the run as a transcript to replay on real servers: a header naming the
                 psql sessions (c1, c2, admin) and redis-cli, the setup, then every command
                 in trace order with "-- expect: <reply>" under it and "(blocks)" where it
                 waits; what cannot be typed (virtual time, faults, the destination) is a
                 comment. Checked by npm run test:fidelity for every preset.
  --transcript=<session>
                 one session's script to paste into its psql or redis-cli (e.g. =c1, =redis)
                 (with --transcript the exit code is 0 once the text is written, whatever the
                 verdict; 2 for bad input)
  --list         the preset ids

exit codes (without --transcript):
  0  held: every invariant held over a run that finished
  1  violated: an invariant was violated
  2  bad input (the message names the field)
  3  inconclusive: the run was cut short (event limit, or the horizon came while a worker was
     still at its job) before any violation, so it proves nothing`;

/** Parsed command line. */
interface Args {
  target: string | null;
  fixed: boolean;
  json: boolean;
  /** null: no transcript; '': the whole transcript; else one session's script. */
  transcript: string | null;
  list: boolean;
  help: boolean;
}

/** Thrown for bad input; the message is printed and the exit code is 2. */
export class InputError extends Error {}

/** Parses argv (without node and the script). Throws InputError on unknown flags. */
export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { target: null, fixed: false, json: false, transcript: null, list: false, help: false };
  for (const a of argv) {
    if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--fixed') args.fixed = true;
    else if (a === '--json') args.json = true;
    else if (a === '--list') args.list = true;
    else if (a === '--transcript') args.transcript = '';
    else if (a.startsWith('--transcript=')) {
      args.transcript = a.slice('--transcript='.length);
      if (args.transcript === '') throw new InputError('--transcript= needs a session id (e.g. --transcript=c1), or use --transcript for all sessions');
    } else if (a.startsWith('-')) throw new InputError(`unknown option ${a} (expected --fixed, --json, --transcript, --list or --help)`);
    else if (args.target === null) args.target = a;
    else throw new InputError(`unexpected argument ${a}: give one preset id or one scenario file`);
  }
  if (args.json && args.transcript !== null) throw new InputError('give --json or --transcript, not both');
  return args;
}

/** Resolves a preset id or a JSON file path to a validated scenario. Throws InputError with the field paths on bad input. */
export function loadScenario(target: string, fixed: boolean): Scenario {
  const preset = findPreset(target);
  if (preset) return fixed ? preset.withFix : preset.withoutFix;
  if (!target.endsWith('.json') && !target.includes('/')) {
    throw new InputError(`unknown preset "${target}". Known presets: ${PRESETS.map((p) => p.id).join(', ')} (or give a path to a .json scenario file)`);
  }
  if (fixed) throw new InputError('--fixed applies to presets only; a scenario file already says which mechanism it uses');
  let text: string;
  try {
    text = readFileSync(target, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${target}: ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${target} is not valid JSON: ${(e as Error).message}${lineAndColumn(text, (e as Error).message)}`);
  }
  const result = parseScenario(data);
  if (!result.ok) throw new InputError(`${target} is not a valid scenario:\n${formatErrors(result.errors)}`);
  return result.scenario;
}

/** ` (line 3, column 7)` for a JSON.parse message that gives a character position, else ''. */
function lineAndColumn(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** The human-readable timeline and verdict. */
export function formatTimeline(r: RunResult): string {
  const lines = [`${r.scenario.title}${r.scenario.id ? ` (${r.scenario.id})` : ''}`, ''];
  for (const e of r.events) {
    const t = pad(`${(e.atMs / 1000).toFixed(3)} s`, 10);
    const head = `${t} ${pad(e.id, 6)} ${pad(e.actor, 9)}`;
    if (e.command !== undefined) {
      lines.push(`${head} ${e.command}${e.reply !== undefined ? ` → ${e.reply}` : ''}`);
      lines.push(`${' '.repeat(head.length + 1)}${e.narration}`);
    } else lines.push(`${head} ${e.narration}${e.reply !== undefined ? ` (${e.reply})` : ''}`);
  }
  lines.push('', r.verdict.summary);
  for (const v of r.verdict.violations) lines.push(`  ✗ ${v.invariant}: ${v.message} [${v.eventIds.join(', ')}]`);
  for (const n of r.verdict.notes) lines.push(`  ~ ${n.invariant}: ${n.message} [${n.eventIds.join(', ')}]`);
  const m = r.metrics;
  const waiting = m.acquisitionStillWaiting ? ` (${m.acquisitionStillWaiting.count} still waiting, longest ${m.acquisitionStillWaiting.maxMs} ms)` : '';
  const lost = m.commitsOnLostLease ? ` (${m.commitsOnLostLease} on a lost lease)` : '';
  lines.push(`  metrics: acquisition latency mean ${m.acquisitionLatency.meanMs} ms (max ${m.acquisitionLatency.maxMs})${waiting}, lease age at commit (since its last renewal) max ${m.leaseAgeAtCommit.maxMs} ms${lost}, renew failures ${m.renewFailures}, stale writes rejected ${m.staleWritesRejected}, duplicate effects ${m.duplicateEffects}, wasted work ${m.wastedWorkMs} ms`);
  lines.push(`  trace hash ${r.traceHash}`);
  if (r.error) lines.push(`  run stopped early: ${r.error}`);
  if (r.verdict.status === 'inconclusive') lines.push('  exit code 3: inconclusive (see --help)');
  return lines.join('\n');
}

/** Runs the CLI; returns the exit code. */
export function main(argv: readonly string[], out: (s: string) => void = console.log, err: (s: string) => void = console.error): number {
  try {
    const args = parseArgs(argv);
    if (args.help) {
      out(USAGE);
      return EXIT.held;
    }
    if (args.list) {
      for (const p of PRESETS) out(`${pad(p.id, 22)} ${p.title}`);
      return 0;
    }
    if (args.target === null) throw new InputError('give a preset id or a scenario file (npm run simulate -- --list lists presets)');
    const scenario = loadScenario(args.target, args.fixed);
    const r = runScenario(scenario);
    if (args.transcript !== null) {
      const t = buildTranscript(r);
      const variant = findPreset(args.target) ? (args.fixed ? 'with the fix' : 'without the fix') : undefined;
      if (args.transcript === '') out(renderTranscript(t, variant).trimEnd());
      else {
        try {
          out(renderSessionScript(t, args.transcript, variant).trimEnd());
        } catch (e) {
          throw new InputError((e as Error).message);
        }
      }
      // The export succeeded: the verdict is the run's, not an error of writing its transcript.
      return EXIT.held;
    } else if (args.json) {
      out(JSON.stringify({ scenario: r.scenario, verdict: { status: r.verdict.status, held: r.verdict.held, summary: r.verdict.summary, violations: r.verdict.violations, notes: r.verdict.notes, ...(r.verdict.cutShort ? { cutShort: r.verdict.cutShort } : {}) }, traceHash: r.traceHash, events: r.events, metrics: r.metrics, ...(r.error ? { error: r.error } : {}) }, null, 2));
    } else out(formatTimeline(r));
    return EXIT[r.verdict.status];
  } catch (e) {
    if (e instanceof InputError) {
      err(`error: ${e.message}`);
      return EXIT.badInput;
    }
    throw e;
  }
}

const invokedDirectly = process.argv[1]?.endsWith('simulate.ts') || process.argv[1]?.endsWith('simulate.js');
if (invokedDirectly) process.exitCode = main(process.argv.slice(2));
