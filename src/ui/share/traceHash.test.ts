/**
 * The trace hash the "About this run" panel shows equals the CLI's `traceHash` for the exported
 * scenario file, also after the scenario travelled through a share link.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../cli/simulate';
import { findPreset, PRESETS, type Scenario } from '../../sim';
import { decodeShare, encodeShare, shareFromScenario } from '../../share/link';
import { deriveRun } from '../store/derive';
import { parseScenarioText, scenarioJson, fileBase } from './files';

function cliHash(s: Scenario): string {
  const dir = mkdtempSync(join(tmpdir(), 'lockscope-ui-'));
  const file = join(dir, `${fileBase(s)}.json`);
  writeFileSync(file, scenarioJson(s));
  const out: string[] = [];
  main([file, '--json'], (x) => out.push(x), () => {});
  return (JSON.parse(out.join('\n')) as { traceHash: string }).traceHash;
}

describe('About this run: the trace hash', () => {
  it('equals `npm run simulate -- file.json --json` for the exported scenario, after a link round trip', () => {
    const base = findPreset('export-lease-expiry')!.withoutFix;
    const edited: Scenario = {
      ...base,
      faults: [...base.faults, { kind: 'partition', worker: 'B', atMs: 20_000, durationMs: 5_000 }, { kind: 'manualDelete', atMs: 50_000 }],
    };
    const received = decodeShare(encodeShare(shareFromScenario(edited, { c: 3 })));
    expect(received.ok).toBe(true);
    if (!received.ok) return;
    const shownBySender = deriveRun(edited).traceHash;
    const shownByReceiver = deriveRun(received.scenario).traceHash;
    expect(shownByReceiver).toBe(shownBySender);
    expect(cliHash(received.scenario)).toBe(shownBySender);
  });

  it('holds for every preset variant and for an edited whole scenario', () => {
    for (const p of PRESETS.slice(0, 4)) for (const s of [p.withoutFix, p.withFix]) expect(cliHash(s)).toBe(deriveRun(s).traceHash);
    const custom = { ...findPreset('invoice-race')!.withoutFix, seed: 7, title: 'Mine <b>bold</b>' };
    expect(cliHash(custom)).toBe(deriveRun(custom).traceHash);
  });

  it('an exported file imports back to the same scenario', () => {
    const s = findPreset('unsafe-release')!.withFix;
    const r = parseScenarioText(scenarioJson(s));
    expect(r.ok && deriveRun(r.scenario).traceHash).toBe(deriveRun(s).traceHash);
  });

  it.each([
    ['not JSON', '{ nope', 'file: is not JSON'],
    ['a newer version', JSON.stringify({ ...findPreset('invoice-race')!.withoutFix, version: 99 }), 'version: is 99'],
    ['a negative duration', JSON.stringify({ ...findPreset('invoice-race')!.withoutFix, horizonMs: -1 }), 'horizonMs: must be ≥ 1'],
    ['NaN (as null in JSON)', JSON.stringify({ ...findPreset('invoice-race')!.withoutFix, seed: Number.NaN }), 'seed: must be'],
    ['a huge file', ' '.repeat(1_000_001), 'files over'],
  ])('refuses a file with %s, naming the field', (_n, text, expected) => {
    const r = parseScenarioText(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n')).toContain(expected);
  });
});
