import { describe, expect, it } from 'vitest';
import { findPreset, runScenario } from '../../sim';
import { foldRetries, spacingText } from './folds';

describe('folding repeated retries', () => {
  it("folds B's identical SET NX retries into one entry with their count and spacing", () => {
    const { events } = runScenario(findPreset('export-lease-expiry')!.withoutFix);
    const entries = foldRetries(events);
    const folds = entries.filter((e) => e.kind === 'fold');
    expect(folds.length).toBeGreaterThanOrEqual(1);
    const f = folds[0]!;
    if (f.kind !== 'fold') throw new Error('not a fold');
    const first = events[f.indices[0]!]!;
    expect(first.actor).toBe('B');
    expect(first.reply).toBe('(nil)');
    expect(f.indices.every((i) => events[i]!.command === first.command && events[i]!.reply === first.reply)).toBe(true);
    expect(f.indices.length).toBeGreaterThanOrEqual(20);
    expect(spacingText(events, f.indices)).toBe('1 s apart');
    // Every event is in exactly one entry, and entries keep the order of their first event.
    const seen = entries.flatMap((e) => (e.kind === 'event' ? [e.index] : e.indices)).sort((a, b) => a - b);
    expect(seen).toEqual(events.map((_, i) => i));
  });

  it('leaves runs without repeats alone', () => {
    const { events } = runScenario(findPreset('invoice-race')!.withoutFix);
    expect(foldRetries(events).every((e) => e.kind === 'event')).toBe(true);
  });
});
