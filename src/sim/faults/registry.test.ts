/**
 * The fault registry: each built-in kind's entry (generator, description, lane, applicability),
 * and a toy kind added through the public registration only (src/sim/index.ts), which the
 * scenario schema then accepts and the engine applies.
 */
import { z } from 'zod';
import { PRESETS, findPreset, registerFaultKind, faultKinds, describeFault, faultLane, generateFault, faultPlacement, fmtMs, Rng, runScenario, validateScenario, type FaultBase, type FaultKindDef } from '../index';
import type { Scenario } from '../scenario/schema';

const exportBase = findPreset('export-lease-expiry')!.withoutFix;

describe('fault registry', () => {
  it('lists the eleven built-in kinds (renewalStall and shutdown since scenario version 2) in the format\'s order', () => {
    expect(faultKinds().map((k) => k.kind)).toEqual(['pause', 'expireLease', 'crash', 'partition', 'adminBypass', 'manualDelete', 'jobError', 'failover', 'clockJump', 'renewalStall', 'shutdown']);
  });

  it('every kind generates valid faults for every preset, the same ones for the same seed', () => {
    for (const p of PRESETS) {
      for (const kind of faultKinds()) {
        for (let seed = 0; seed < 20; seed++) {
          const f = kind.generate(new Rng(seed), p.withoutFix);
          expect(f.kind).toBe(kind.kind);
          expect(kind.generate(new Rng(seed), p.withoutFix)).toEqual(f);
          const v = validateScenario({ ...p.withoutFix, faults: [f] });
          expect(v.ok ? [] : v.errors).toEqual([]);
        }
      }
    }
  });

  it('generateFault draws every kind over enough seeds', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 300; seed++) seen.add(generateFault(new Rng(seed), exportBase).kind);
    expect([...seen].sort()).toEqual(faultKinds().map((k) => k.kind).sort());
  });

  it('describes and places each kind as the timeline shows it', () => {
    const s = exportBase;
    expect(describeFault({ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 } as FaultBase, s)).toBe('Pause A for 40 s at 3 s');
    expect(describeFault({ kind: 'crash', worker: 'A', step: 1, phase: 'after', restartAfterMs: null } as FaultBase, s)).toBe(`Crash A after step 2 (${s.workers[0]!.steps[1]!.do}), no restart`);
    expect(describeFault({ kind: 'clockJump', atMs: 1_250, jumpMs: 20_000 } as FaultBase, s)).toBe('Lease store clock jumps 20 s at 1.25 s');
    expect(faultLane({ kind: 'manualDelete', atMs: 0 }, s)).toEqual({ kind: 'lease', key: s.lease.key });
    expect(faultLane({ kind: 'jobError', worker: 'B', atMs: 0 }, s)).toEqual({ kind: 'worker', worker: 'B' });
    expect(faultLane({ kind: 'adminBypass', atMs: 0 }, s)).toEqual({ kind: 'database' });
  });

  it('lease-store faults apply only to a scenario that involves the lease store', () => {
    const advisory = findPreset('session-lock-pool')!.withoutFix;
    const leaseKinds = faultKinds().filter((k) => k.lane === 'lease');
    expect(leaseKinds.map((k) => k.kind)).toEqual(['expireLease', 'manualDelete', 'failover', 'clockJump']);
    expect(leaseKinds.every((k) => k.appliesTo(exportBase))).toBe(true);
    expect(leaseKinds.some((k) => k.appliesTo(advisory))).toBe(false);
    expect(leaseKinds.every((k) => k.appliesTo({ ...advisory, faults: [{ kind: 'failover', atMs: 0 }] }))).toBe(true);
  });

  it('refuses to register a kind twice', () => {
    expect(() => registerFaultKind(faultKinds()[0]!)).toThrow(/already registered/);
  });
});

describe('a toy fault kind, through the public registration only', () => {
  interface Shorten extends FaultBase {
    readonly kind: 'shortenTtl';
    readonly byMs: number;
  }
  const toy: FaultKindDef<Shorten> = {
    kind: 'shortenTtl',
    label: 'shorten the lease TTL',
    schema: z.strictObject({ kind: z.literal('shortenTtl'), byMs: z.int().min(1), ...faultPlacement, worker: z.string().optional() }) as z.ZodType<Shorten>,
    lane: 'lease',
    actor: 'operator',
    glyph: 'S',
    describe: (f, s, when) => `Shorten ${s.lease.key} by ${fmtMs(f.byMs)} ${when}`,
    appliesTo: (s) => s.mechanism.lock === 'lease',
    generate: (rng, s) => ({ kind: 'shortenTtl', atMs: rng.int(0, s.horizonMs), byMs: rng.int(1, 10_000) }),
    apply: (ctx, f) => {
      const L = ctx.world.scenario.lease;
      // PTTL then PEXPIRE with the shorter TTL, as an operator would type them.
      const pttl = ctx.world.redis('operator', { op: 'PTTL', key: L.key }, () => `The operator asks how long ${L.key} has left.`);
      if (pttl.kind === 'int' && pttl.value > 0) {
        ctx.world.redis('operator', { op: 'PEXPIRE', key: L.key, ms: Math.max(1, pttl.value - f.byMs) }, () => `The operator shortens ${L.key} by ${fmtMs(f.byMs)}.`);
        ctx.world.scheduleExpiry();
      }
      ctx.event(`Shortened ${L.key}.`);
      return 'continue';
    },
  };

  it('the schema accepts it only while it is registered, and the engine applies it', () => {
    const scenario = { ...exportBase, faults: [{ kind: 'shortenTtl', atMs: 2_000, byMs: 25_000 }] };
    const before = validateScenario(scenario);
    expect(before.ok).toBe(false);
    const unregister = registerFaultKind(toy);
    try {
      const v = validateScenario(scenario);
      expect(v.ok ? [] : v.errors).toEqual([]);
      const bad = validateScenario({ ...exportBase, faults: [{ kind: 'shortenTtl', atMs: 2_000, byMs: 0 }] });
      expect(bad.ok ? [] : bad.errors).toEqual([{ path: 'faults[0].byMs', message: 'must be ≥ 1' }]);
      const r = runScenario((v as { scenario: Scenario }).scenario);
      const ops = r.events.filter((e) => e.actor === 'operator').map((e) => e.command ?? e.narration);
      expect(ops).toEqual(['PTTL lease:export', 'PEXPIRE lease:export 3000', 'Shortened lease:export.']);
      // A (paused by nothing here) had 28 s left at 2 s; 3 s later the key expires and B takes the lease.
      expect(r.events.find((e) => e.kind === 'expiry')!.atMs).toBe(5_000);
      expect(describeFault(scenario.faults[0]!, exportBase)).toBe('Shorten lease:export by 25 s at 2 s');
      expect(faultLane(scenario.faults[0]!, exportBase)).toEqual({ kind: 'lease', key: 'lease:export' });
      expect(faultKinds().map((k) => k.kind)).toContain('shortenTtl');
    } finally {
      unregister();
    }
    expect(validateScenario(scenario).ok).toBe(false);
    expect(faultKinds().map((k) => k.kind)).not.toContain('shortenTtl');
  });
});

describe('run delays and lease-outliving durations (the search horizon and an interview grade read these)', () => {
  const s = findPreset('export-lease-expiry')!.withoutFix;
  it('a fault that holds its worker up delays the run by its duration; a crash by its restart plus the redo; the rest by nothing', () => {
    const rng = new Rng(7);
    for (const def of faultKinds()) {
      for (let i = 0; i < 20; i++) {
        const f = def.generate(rng, s);
        const delay = def.runDelayMs?.(f, 1_000) ?? 0;
        const d = def.duration?.get(f) ?? null;
        if (def.kind === 'pause' || def.kind === 'partition') expect(delay).toBe(d);
        else if (def.kind === 'crash') expect(delay).toBe((d ?? 0) + 1_000);
        else expect(delay).toBe(0);
      }
    }
  });
  it('only a pause, a partition and a clock jump are spans a lease holder outlives its lease by, and each has a duration to grow', () => {
    expect(faultKinds().filter((d) => d.outlivesLease).map((d) => d.kind).sort()).toEqual(['clockJump', 'partition', 'pause']);
    for (const d of faultKinds().filter((k) => k.outlivesLease)) expect(d.duration).toBeDefined();
  });
});
