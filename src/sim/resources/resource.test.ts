/**
 * The resource interface: the built-ins are registered and snapshot as before, and a toy
 * resource (a message queue with a visibility timeout) joins a run through the public
 * registration only (src/sim/index.ts): the World creates it, a fault calls it, its events,
 * wake-ups and snapshot appear without any change to the engine.
 */
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import { parseScenario } from '../scenario/migrate';
import { findPreset, registerFaultKind, registerResource, resourceDefs, runScenario, validateScenario, faultPlacement, type Execution, type FaultBase, type Resource, type ResourceNotice, type Scenario } from '../index';

type QueueCmd = { readonly op: 'SEND'; readonly body: string } | { readonly op: 'RECEIVE' };
type QueueReply = { readonly id: string; readonly body: string } | null;
interface QueueSnapshot { readonly visible: readonly string[]; readonly inFlight: readonly string[] }

/** A queue: a received message is invisible for `visibilityMs`, then visible again unless deleted (here: never deleted). */
class ToyQueue implements Resource<QueueCmd, QueueReply, QueueSnapshot> {
  readonly name = 'toyQueue';
  readonly traceKind = 'queue';
  private next = 1;
  private readonly visible: { id: string; body: string }[] = [];
  private readonly inFlight: { id: string; body: string; untilMs: number }[] = [];
  constructor(private readonly visibilityMs: number) {}
  execute(nowMs: number, _caller: string, cmd: QueueCmd): Execution<QueueCmd, QueueReply> {
    if (cmd.op === 'SEND') {
      const m = { id: `m${this.next++}`, body: cmd.body };
      this.visible.push(m);
      return { reply: m, completions: [] };
    }
    const m = this.visible.shift() ?? null;
    if (m) this.inFlight.push({ ...m, untilMs: nowMs + this.visibilityMs });
    return { reply: m, completions: [] };
  }
  waits(): boolean {
    return false;
  }
  renderCommand(cmd: QueueCmd): string {
    return cmd.op === 'SEND' ? `SEND ${cmd.body}` : 'RECEIVE';
  }
  renderReply(reply: QueueReply): string {
    return reply === null ? '(empty)' : `${reply.id} ${reply.body}`;
  }
  snapshot(): QueueSnapshot {
    return { visible: this.visible.map((m) => m.id), inFlight: this.inFlight.map((m) => m.id) };
  }
  nextWakeMs(): number | null {
    return this.inFlight.length === 0 ? null : Math.min(...this.inFlight.map((m) => m.untilMs));
  }
  wake(nowMs: number): readonly ResourceNotice[] {
    const due = this.inFlight.filter((m) => m.untilMs <= nowMs);
    for (const m of due) {
      this.inFlight.splice(this.inFlight.indexOf(m), 1);
      this.visible.push({ id: m.id, body: m.body });
    }
    return due.map((m) => ({ actor: 'queue', narration: `${m.id} was not deleted in time: it is visible again.` }));
  }
}

interface QueueFault extends FaultBase {
  readonly kind: 'toyQueueTraffic';
}

describe('resources', () => {
  it('the built-ins are registered in the order a snapshot shows them', () => {
    expect(resourceDefs().map((d) => d.name)).toEqual(['redis', 'db', 'destination', 'pool', 'pooler', 'queue', 'etcd']);
    const r = runScenario(findPreset('invoice-race')!.withoutFix, { captureSnapshots: true });
    // A scenario without a pooler has no pooler field; one with a pooler has it last.
    expect(Object.keys(r.snapshots![0]!)).toEqual(['atMs', 'workers', 'leases', 'tables', 'locks', 'pgLocks', 'waitFor', 'destination', 'pool']);
    const p = runScenario(findPreset('pooler-session-lock')!.withoutFix, { captureSnapshots: true });
    expect(Object.keys(p.snapshots![0]!).at(-1)).toBe('pooler');
    // A scenario whose lease lives in etcd has the lock service's field, last.
    const parsed = parseScenario(JSON.parse(readFileSync(new URL('../scenario/fixtures/scenario-v2-etcd.json', import.meta.url), 'utf8')));
    if (!parsed.ok) throw new Error(`the etcd fixture does not validate: ${JSON.stringify(parsed.errors)}`);
    const e = runScenario(parsed.scenario, { captureSnapshots: true });
    expect(Object.keys(e.snapshots![0]!).at(-1)).toBe('lockService');
  });

  it('a toy resource joins a run through registerResource alone', () => {
    const offResource = registerResource<ToyQueue>({ name: 'toyQueue', create: () => new ToyQueue(5_000) });
    const offFault = registerFaultKind<QueueFault>({
      kind: 'toyQueueTraffic', label: 'queue traffic (toy)',
      schema: z.strictObject({ kind: z.literal('toyQueueTraffic'), ...faultPlacement, worker: z.string().optional() }) as z.ZodType<QueueFault>,
      lane: 'database',
      glyph: 'Q',
      describe: (_f, _s, when) => `Queue traffic ${when}`,
      appliesTo: () => true,
      generate: (rng) => ({ kind: 'toyQueueTraffic', atMs: rng.int(0, 1_000) }),
      apply: (ctx) => {
        const queue = ctx.world.resource<ToyQueue>('toyQueue');
        ctx.world.call('producer', queue, { op: 'SEND', body: 'invoice-42' }, (r) => `The producer sends ${r?.id}.`);
        ctx.world.call('consumer', queue, { op: 'RECEIVE' }, (r) => (r ? `The consumer receives ${r.id} and never deletes it.` : 'Nothing to receive.'));
        return 'continue';
      },
    });
    try {
      const base = findPreset('invoice-race')!.withoutFix;
      const v = validateScenario({ ...base, horizonMs: 10_000, faults: [{ kind: 'toyQueueTraffic', atMs: 1_000 }] });
      expect(v.ok ? [] : v.errors).toEqual([]);
      const r = runScenario((v as { scenario: Scenario }).scenario, { captureSnapshots: true });
      const queueEvents = r.events.filter((e) => e.kind === 'queue');
      expect(queueEvents.map((e) => [e.atMs, e.actor, e.command, e.reply, e.narration])).toEqual([
        [1_000, 'producer', 'SEND invoice-42', 'm1 invoice-42', 'The producer sends m1.'],
        [1_000, 'consumer', 'RECEIVE', 'm1 invoice-42', 'The consumer receives m1 and never deletes it.'],
        [6_000, 'queue', undefined, undefined, 'm1 was not deleted in time: it is visible again.'],
      ]);
      const at = (id: string) => r.snapshots![r.events.findIndex((e) => e.id === id)]!;
      expect(at(queueEvents[1]!.id).toyQueue).toEqual({ visible: [], inFlight: ['m1'] });
      expect(at(queueEvents[2]!.id).toyQueue).toEqual({ visible: ['m1'], inFlight: [] });
      // The rest of the run is the preset's own (its worker events are unchanged).
      const plain = runScenario({ ...base, horizonMs: 10_000 });
      expect(r.events.filter((e) => e.kind !== 'queue' && e.kind !== 'fault').map((e) => e.narration)).toEqual(plain.events.map((e) => e.narration));
    } finally {
      offFault();
      offResource();
    }
    expect(resourceDefs().map((d) => d.name)).not.toContain('toyQueue');
  });

  it('refuses a second resource of the same name', () => {
    expect(() => registerResource({ name: 'db', create: () => new ToyQueue(1) })).toThrow(/already registered/);
  });
});
