import { PRESETS, findPreset, runScenario } from '..';
import { usesDatabase, usesDestination } from './uses';

describe('which resources a scenario has', () => {
  it.each(PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const))('%s %s the fix: a resource a run touches is one the scenario has', (_id, _v, s) => {
    const events = runScenario(s).events;
    if (events.some((e) => e.kind === 'destination')) expect(usesDestination(s)).toBe(true);
    if (events.some((e) => e.kind === 'sql' || e.kind === 'pool')) expect(usesDatabase(s)).toBe(true);
  });

  it('unsafe-release takes and releases a lease and writes no file; crash-after-effect calls an API', () => {
    const u = findPreset('unsafe-release')!;
    expect(usesDestination(u.withoutFix)).toBe(false);
    expect(usesDestination(u.withFix)).toBe(false);
    expect(usesDatabase(u.withoutFix)).toBe(false);
    expect(usesDestination(findPreset('crash-after-effect')!.withoutFix)).toBe(true);
    // An admin script writes the destination of an external job directly.
    expect(usesDestination({ ...u.withoutFix, faults: [{ kind: 'adminBypass', atMs: 1 }] })).toBe(true);
    expect(usesDestination(findPreset('invoice-race')!.withoutFix)).toBe(false);
  });
});
