/**
 * A switch never misstates the scenario: what it shows (its value and, for a switch that stands for
 * several fields, its neutral facts — `SwitchDef.facts`) must tell apart every two setups that run
 * differently. Found by a newcomer: fence-ignored's workers take INCR tokens while the "Fencing
 * token" switch (on only when the destination checks them too) reads unticked, and in the
 * candidate's interview no hint explains it.
 */
import { PRESETS, runScenario, validateScenario, type Scenario } from '..';
import { SWITCHES, relevantSwitches } from './switches';

/** What the panel shows of switch `d` for `s`: its value and its facts' text. */
const shown = (d: (typeof SWITCHES)[number], s: Scenario) => JSON.stringify([d.get(s), d.facts?.(s).text ?? null]);
const hashOf = (s: Scenario) => runScenario(s).traceHash;

/** Every preset variant, and each with every switch flipped to each of its values once (the states a candidate reaches in one click). */
function scenarios(): { where: string; s: Scenario }[] {
  const out: { where: string; s: Scenario }[] = [];
  for (const p of PRESETS) for (const [v, s] of [['without', p.withoutFix], ['with', p.withFix]] as const) {
    out.push({ where: `${p.id} ${v}`, s });
    // The two sides of a two-sided switch apart, the other way round too: the destination checks, the workers send nothing.
    out.push({ where: `${p.id} ${v}, destination checks alone`, s: { ...s, mechanism: { ...s.mechanism, fencing: false, idempotencyKey: false }, destination: { ...s.destination, checksFencing: true, honoursIdempotencyKeys: true } } });
  }
  return out;
}

describe('a switch shows every field it sets, in neutral facts where its value cannot', () => {
  it.each(scenarios().map(({ where, s }) => [where, s] as const))('%s: setting the value a switch shows changes nothing it does not show', (where, s) => {
    const ok = validateScenario(s);
    if (!ok.ok) return;
    for (const d of relevantSwitches(s)) {
      const same = d.set(s, d.get(s));
      if (shown(d, same) === shown(d, s)) expect(hashOf(same), `${where}: ${d.id} shows ${shown(d, s)} for two setups that run differently`).toBe(hashOf(s));
      const f = d.facts?.(s);
      if (f) expect(f.agrees, `${where}: ${d.id}'s facts say whether its value states the fields`).toBe(shown(d, same) === shown(d, s) && JSON.stringify(same) === JSON.stringify(s));
    }
  });

  it('fence-ignored: the workers take INCR tokens the destination does not check — the switch is off and its facts say the tokens are taken', () => {
    const s = PRESETS.find((p) => p.id === 'fence-ignored')!.withoutFix;
    const d = SWITCHES.find((x) => x.id === 'fencing')!;
    expect(runScenario(s).events.some((e) => JSON.stringify(e.call ?? null).includes('"op":"INCR"') && e.narration.includes('gets fencing token'))).toBe(true);
    expect(d.get(s)).toBe(false);
    expect(d.facts!(s)).toEqual({ text: 'Workers take a token: yes (Redis INCR)', agrees: false });
    // Neutral words: a state, never a consequence or the fix.
    expect(d.facts!(s).text).not.toMatch(/accept|reject|stale|duplicate|should|fix/i);
    const off = d.set(s, false);
    expect(d.facts!(off)).toEqual({ text: 'Workers take a token: no', agrees: true });
  });

  it('the idempotency key and a database-sequence token are worded as the trace names them', () => {
    const s = PRESETS.find((p) => p.id === 'failover-fence')!.withFix;
    expect(SWITCHES.find((x) => x.id === 'fencing')!.facts!(s).text).toBe("Workers take a token: yes (nextval('fence_seq'))");
    const c = PRESETS.find((p) => p.id === 'crash-after-effect')!.withoutFix;
    const idem = SWITCHES.find((x) => x.id === 'idempotencyKey')!;
    expect(idem.facts!({ ...c, mechanism: { ...c.mechanism, idempotencyKey: true } })).toEqual({ text: 'Workers send a key: yes (the job key)', agrees: false });
    expect(idem.facts!({ ...c, destination: { ...c.destination, honoursIdempotencyKeys: true } })).toEqual({ text: 'Workers send a key: no · the destination honours keys', agrees: false });
  });
});
