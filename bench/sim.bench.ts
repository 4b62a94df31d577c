/**
 * `npm run bench`: prints, in one run,
 * - simulations per second for each preset (without and with the fix) and ms per simulation;
 * - the engine's mean microseconds per worker transition (whole run time / worker transitions);
 * - the same for a bare, long-lived XState `actor.send` loop on the worker machine, and the ratio.
 * - the mean ms per simulation over all presets for a person's run and for a machine's run
 *   (`text: false`, and also `stopAtFirstViolation`), the options a fault search uses.
 * Targets (issue 2): ratio ≤ 2; every preset < 5 ms per simulation; export-lease-expiry ≥ 5,000/s.
 * Figures, not assertions: timing tests flake, benchmarks inform.
 */
import { performance } from 'node:perf_hooks';
import { createActor } from 'xstate';
import { PRESETS, runScenario, type RunOptions, type Scenario } from '../src/sim';
import { workerMachine, type WorkerEvent } from '../src/sim/workers/workerMachine';
import { World } from '../src/sim/engine/world';

const BUDGET_MS = Number(process.env.BENCH_MS ?? 400);

function measure(scenario: Scenario): { perSecond: number; msPerSim: number; usPerTransition: number; transitions: number } {
  for (let i = 0; i < 50; i++) runScenario(scenario); // warm up the JIT
  let runs = 0;
  let transitions = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < BUDGET_MS) {
    for (let i = 0; i < 20; i++) transitions += runScenario(scenario).metrics.workerTransitions;
    runs += 20;
    elapsed = performance.now() - start;
  }
  return { perSecond: (runs / elapsed) * 1000, msPerSim: elapsed / runs, usPerTransition: (elapsed * 1000) / transitions, transitions: transitions / runs };
}

/** A fixed four-event loop (one event in four carries a belief patch), for reference. */
function simpleSendUs(): number {
  const actor = createActor(workerMachine);
  actor.start();
  const events = [{ type: 'WORK' }, { type: 'EFFECT', patch: { readValue: 1 } }, { type: 'RECORD' }, { type: 'WAIT' }] as const;
  for (let i = 0; i < 20_000; i++) actor.send(events[i & 3]!);
  const n = 400_000;
  const start = performance.now();
  for (let i = 0; i < n; i++) actor.send(events[i & 3]!);
  return ((performance.now() - start) * 1000) / n;
}

/**
 * The baseline for the ratio: the events the engine really sends (recorded from every preset,
 * with their belief patches), replayed per worker on long-lived actors — XState's own cost for
 * the same work, without the engine. FINISH is left out so the actors stay alive.
 */
function recordedSendUs(): number {
  const perWorker: WorkerEvent[][] = [];
  const original = World.prototype.send;
  const current = new Map<unknown, WorkerEvent[]>();
  World.prototype.send = function (this: World, w, type, patch) {
    let list = current.get(w);
    if (!list) current.set(w, (list = []));
    if (type !== 'FINISH') list.push(patch ? ({ type, patch } as WorkerEvent) : ({ type } as WorkerEvent));
    original.call(this, w, type, patch);
  };
  for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) {
    current.clear();
    runScenario(s);
    perWorker.push(...current.values());
  }
  World.prototype.send = original;
  const actors = perWorker.map(() => createActor(workerMachine).start());
  const total = perWorker.reduce((n, l) => n + l.length, 0);
  const replay = () => perWorker.forEach((list, i) => { const a = actors[i]!; for (const e of list) a.send(e); });
  for (let i = 0; i < 200; i++) replay();
  const rounds = Math.max(1, Math.ceil(400_000 / total));
  const start = performance.now();
  for (let i = 0; i < rounds; i++) replay();
  return ((performance.now() - start) * 1000) / (rounds * total);
}

/** Mean ms per simulation over every preset variant, run with `options`. */
function msPerSimAll(options: RunOptions): number {
  const all = PRESETS.flatMap((p) => [p.withoutFix, p.withFix]);
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < BUDGET_MS) {
    for (const s of all) runScenario(s, options);
    runs += all.length;
  }
  return (performance.now() - start) / runs;
}

// Warm the JIT on every preset before measuring any of them.
for (let round = 0; round < 3; round++) for (const p of PRESETS) for (let i = 0; i < 200; i++) { runScenario(p.withoutFix); runScenario(p.withFix); }
recordedSendUs();

const rows: string[] = [];
let totalUs = 0;
let totalTransitions = 0;
let worstMs = 0;
let exportPerSecond = 0;
for (const p of PRESETS) {
  for (const [label, s] of [['without fix', p.withoutFix], ['with fix', p.withFix]] as const) {
    const m = measure(s);
    totalUs += m.usPerTransition * m.transitions;
    totalTransitions += m.transitions;
    worstMs = Math.max(worstMs, m.msPerSim);
    if (p.id === 'export-lease-expiry' && label === 'without fix') exportPerSecond = m.perSecond;
    rows.push(`${p.id.padEnd(22)} ${label.padEnd(12)} ${m.perSecond.toFixed(0).padStart(8)} sims/s ${m.msPerSim.toFixed(3).padStart(8)} ms/sim ${m.transitions.toFixed(0).padStart(5)} transitions ${m.usPerTransition.toFixed(2).padStart(7)} µs/transition`);
  }
}
const person = msPerSimAll({});
const machine = msPerSimAll({ text: false });
const machineStop = msPerSimAll({ text: false, stopAtFirstViolation: true });
const engineUs = totalUs / totalTransitions;
const sendUs = recordedSendUs();
const simpleUs = simpleSendUs();
console.log('Lockscope simulation benchmark (one core, Node ' + process.version + ')\n');
console.log(rows.join('\n'));
console.log('');
console.log(`engine: mean ${engineUs.toFixed(2)} µs per worker transition (whole run, all presets)`);
console.log(`bare XState actor.send loop, the engine's recorded events replayed on long-lived actors: ${sendUs.toFixed(2)} µs per send`);
console.log(`(for reference, a fixed four-event loop: ${simpleUs.toFixed(2)} µs per send)`);
console.log(`ratio engine / bare send: ${(engineUs / sendUs).toFixed(2)} (target ≤ 2)`);
console.log(`slowest preset: ${worstMs.toFixed(3)} ms per simulation (target < 5 ms)`);
console.log(`export-lease-expiry: ${exportPerSecond.toFixed(0)} simulations/s (target ≥ 5,000)`);
console.log(`all presets, mean per simulation: ${person.toFixed(3)} ms with texts; ${machine.toFixed(3)} ms with text: false; ${machineStop.toFixed(3)} ms with text: false + stopAtFirstViolation`);
