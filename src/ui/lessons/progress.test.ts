import { describe, expect, it } from 'vitest';
import { drawSeed, loadProgress, markDone, NO_PROGRESS, PROGRESS_KEY, saveProgress } from './progress';

function memory(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}

describe('lesson progress on this device', () => {
  it('round-trips what was done and the questions drawn', () => {
    const st = memory();
    let p = markDone(NO_PROGRESS, 'unique');
    p = markDone(p, 'unique');
    const d = drawSeed(p, 'lease');
    expect(d.seed).toBe(0);
    saveProgress(d.progress, st);
    const back = loadProgress(st);
    expect(back.done).toEqual(['unique']);
    expect(drawSeed(back, 'lease').seed).toBe(1);
  });

  it.each([
    ['not JSON', '{oops'],
    ['another version', JSON.stringify({ v: 2, done: ['unique'] })],
    ['an unknown lesson', JSON.stringify({ v: 1, done: ['hacking'] })],
    ['a prototype key', '{"v":1,"done":[],"__proto__":{"x":1}}'],
    ['a huge value', JSON.stringify({ v: 1, done: [], pad: 'x'.repeat(20_000) })],
    ['a negative seed', JSON.stringify({ v: 1, done: [], drawn: { unique: -3 } })],
  ])('reads %s as no progress, without throwing', (_name, raw) => {
    const p = loadProgress(memory({ [PROGRESS_KEY]: raw }));
    expect(p.done.length === 0 || p.done.every((d) => typeof d === 'string')).toBe(true);
    expect(p.done).not.toContain('hacking');
    expect(Object.values(p.drawn).every((n) => (n ?? 0) >= 0)).toBe(true);
  });

  it('survives storage that throws', () => {
    const bad = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('full'); } };
    expect(loadProgress(bad)).toEqual(NO_PROGRESS);
    expect(() => saveProgress(markDone(NO_PROGRESS, 'lease'), bad)).not.toThrow();
  });
});
