import fc from 'fast-check';
import { compressToEncodedURIComponent } from 'lz-string';
import { decodeShare, encodeShare, shareFromScenario, MAX_DECOMPRESSED_CHARS } from './link';
import { PRESETS, findPreset, runScenario, parseScenario, type Fault } from '../sim';

const link = (payload: unknown) => `v=1&s=${compressToEncodedURIComponent(JSON.stringify(payload))}`;
const errorText = (fragment: string) => {
  const r = decodeShare(fragment);
  return r.ok ? 'ok' : r.errors.map((e) => `${e.path}: ${e.message}`).join('\n');
};

describe('share links', () => {
  it('round-trips every preset variant to the same run (same trace hash)', () => {
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        const r = decodeShare(encodeShare(shareFromScenario(s, { c: 7, w: 'compare' })));
        expect(r.ok).toBe(true);
        if (!r.ok) continue;
        expect(r.scenario).toEqual(s);
        expect(runScenario(r.scenario).traceHash).toBe(runScenario(s).traceHash);
        expect(r.state).toMatchObject({ c: 7, w: 'compare' });
      }
    }
  });

  it('keeps every preset link, and a preset with five faults added, under 1,500 characters', () => {
    const five = (h: number, a: string, b: string): Fault[] => [
      { kind: 'pause', worker: a, atMs: Math.floor(h * 0.05), pauseMs: 40_000 },
      { kind: 'crash', worker: b, step: 0, phase: 'after', restartAfterMs: 2_000 },
      { kind: 'partition', worker: a, atMs: Math.floor(h * 0.2), durationMs: 5_000 },
      { kind: 'manualDelete', atMs: Math.floor(h * 0.3) },
      { kind: 'expireLease', atMs: Math.floor(h * 0.4) },
    ];
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        expect(`#${encodeShare(shareFromScenario(s, { c: 12 }))}`.length).toBeLessThan(1_500);
        const faults = [...s.faults, ...five(s.horizonMs, s.workers[0]!.id, s.workers.at(-1)!.id)];
        const withFaults = { ...s, faults };
        const valid = parseScenario(withFaults);
        expect(valid.ok ? [] : valid.errors).toEqual([]);
        expect(`#${encodeShare(shareFromScenario(withFaults, { c: 12, w: 'compare', k: { fencing: true } }))}`.length).toBeLessThan(1_500);
      }
    }
  });

  it('a whole edited scenario also round-trips', () => {
    const base = findPreset('invoice-race')!.withoutFix;
    const s = {
      ...base,
      seed: 99,
      title: 'Edited',
      description: 'Three workers; the second starts late and pauses.',
      workers: [...base.workers, { id: 'C', startMs: 250, steps: [{ do: 'connect' as const }, { do: 'effect' as const, ms: 10 }] }],
      faults: [{ kind: 'pause' as const, worker: 'B', atMs: 30, pauseMs: 400 }],
      mechanism: { ...base.mechanism, uniqueKey: true, acquireTimeoutMs: 1_500 },
    };
    const state = shareFromScenario(s);
    expect(state.s).toBeDefined();
    const r = decodeShare(encodeShare(state));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.scenario).toEqual(s);
  });

  it.each([
    ['not a Lockscope link', 'hello', 'link.v: is missing'],
    ['a newer version', 'v=2&s=abc', 'made by a newer Lockscope'],
    ['not lz data', 'v=1&s=%%%not-base64%%%', 'link.s: is not compressed Lockscope data'],
    ['truncated data', encodeShare({ p: 'invoice-race' }).slice(0, 12), 'link.s'],
    ['valid compression of non-JSON', `v=1&s=${compressToEncodedURIComponent('hello world')}`, 'link.s: decompresses to something that is not JSON'],
    ['JSON of the wrong shape', link([1, 2, 3]), 'link'],
    ['an unknown preset', link({ p: 'nope' }), 'link.p: no preset "nope"'],
    ['an unknown field', link({ p: 'invoice-race', zz: 1 }), 'link: unknown field "zz"'],
    ['a __proto__ key', `v=1&s=${compressToEncodedURIComponent('{"p":"invoice-race","__proto__":{"polluted":1}}')}`, 'unknown field "__proto__"'],
    ['a constructor key', link({ p: 'invoice-race', constructor: { prototype: { x: 1 } } }), 'unknown field "constructor"'],
    ['a negative pause', link({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1, pauseMs: -5 }] }), 'link.x[0].pauseMs: must be ≥ 1'],
    ['a huge duration', link({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1, pauseMs: 1e15 }] }), 'link.x[0].pauseMs: must be ≤ 3600000'],
    ['a fault after the run', link({ p: 'export-lease-expiry', x: [{ kind: 'expireLease', atMs: 3_000_000 }] }), 'scenario.faults[0].atMs: must be ≤ horizonMs'],
    ['a million faults', link({ p: 'export-lease-expiry', x: Array.from({ length: 1000 }, () => ({ kind: 'expireLease', atMs: 1 })) }), 'link.x: must have at most 32 item(s)'],
    ['a scenario with 10⁶ workers', `v=1&s=${compressToEncodedURIComponent(JSON.stringify({ s: { ...findPreset('invoice-race')!.withoutFix, workers: Array.from({ length: 1000 }, (_, i) => ({ id: `W${i}`, startMs: 0, steps: [{ do: 'work', ms: 1 }] })) } }))}`, 'scenario.workers: must have at most 16 item(s)'],
  ])('refuses %s with a message naming where', (_name, fragment, expected) => {
    expect(errorText(fragment)).toContain(expected);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a decompression bomb by its decompressed size', () => {
    const bomb = `v=1&s=${compressToEncodedURIComponent('a'.repeat(MAX_DECOMPRESSED_CHARS * 3))}`;
    expect(bomb.length).toBeLessThan(8_000);
    expect(errorText(bomb)).toMatch(/decompresses to \d+ characters, over the limit/);
  });

  it('refuses an over-long link before decompressing it', () => {
    expect(errorText(`v=1&s=${'A'.repeat(9_000)}`)).toMatch(/links over 8000 are refused/);
  });

  it('keeps names with markup as plain data (the UI renders them as text)', () => {
    const s = { ...findPreset('invoice-race')!.withoutFix, title: '<img src=x onerror=alert(1)>' };
    const r = decodeShare(encodeShare(shareFromScenario(s)));
    expect(r.ok && r.scenario.title).toBe('<img src=x onerror=alert(1)>');
  });
});

describe('fuzz: the link decoder and the scenario validator never throw', () => {
  const preset = findPreset('export-lease-expiry')!.withoutFix;
  it('10,000 generated strings and objects each yield a scenario or a structured error', () => {
    const check = (r: { ok: boolean; errors?: readonly { path: string; message: string }[] }) => {
      if (!r.ok) {
        expect(r.errors!.length).toBeGreaterThan(0);
        for (const e of r.errors!) expect(typeof e.path === 'string' && typeof e.message === 'string').toBe(true);
      }
    };
    // raw strings as fragments
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => check(decodeShare(s))), { numRuns: 2_500, seed: 42 });
    fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => check(decodeShare(`v=1&s=${s}`))), { numRuns: 2_500, seed: 43 });
    // arbitrary JSON compressed into well-formed links
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (j) => check(decodeShare(link(j)))), { numRuns: 2_000, seed: 44 });
    // arbitrary objects as scenarios, and a real scenario with one field replaced by anything
    fc.assert(fc.property(fc.anything({ maxDepth: 3 }), (o) => check(parseScenario(o))), { numRuns: 1_500, seed: 45 });
    const paths = ['seed', 'horizonMs', 'workers', 'faults', 'mechanism', 'lease', 'destination', 'job', 'invariants', 'version', 'title'] as const;
    fc.assert(fc.property(fc.constantFrom(...paths), fc.jsonValue({ maxDepth: 3 }), (key, value) => check(parseScenario({ ...preset, [key]: value }))), { numRuns: 1_500, seed: 46 });
  });
});

describe('share links of decoded scenarios', () => {
  it('a decoded preset link re-encodes to the same short form (key order does not matter)', () => {
    for (const p of PRESETS) {
      const frag = encodeShare(shareFromScenario(p.withFix, {}, 1));
      const r = decodeShare(frag);
      expect(r.ok).toBe(true);
      if (r.ok) expect(encodeShare(shareFromScenario(r.scenario, {}, 1))).toBe(frag);
    }
  });
});
