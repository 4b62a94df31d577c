// @vitest-environment jsdom
// An interview's timer and transcript across a reload (./session.ts): a reload is an unmount, a
// store created again from the same address, and a remount, with `performance.now` restarted.
import { act } from 'react';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { inlineRunner } from '../explore/coordinator';
import type { ExploreEnv } from '../explore/labels';
import { findPreset } from '../../sim';
import { encodeShare, shareFromScenario, type ShareState } from '../../share/link';
import { applyInitialUrl } from '../url/urlSync';
import { hashOf } from '../url/urlState';
import { CheckDesign } from './InterviewPanel';
import { readSession, sessionKeyOf, writeSession, type SessionEnv } from './session';
import type { InterviewSetup } from '../store/types';

const preset = findPreset('export-lease-expiry')!;
const ID = 'interview-id-0123456789';
/** The page's `performance.now` (restarts at a reload) and the wall clock (does not). */
let perf = 0;
let wall = 1_700_000_000_000;
const env: ExploreEnv = { runners: () => [inlineRunner()], now: () => perf };
const session: SessionEnv = { storage: () => sessionStorage, wallNow: () => wall };

const candidateLink = (extra: Partial<ShareState['g']> = { d: ID }): string => `#${encodeShare(shareFromScenario(preset.withoutFix, { i: 1, g: { k: ['pause'], n: 1, ...extra } }))}`;

/** Opens `hash` in a fresh store and mounts "Check my design" — the page after a (re)load. */
function open(hash: string) {
  window.history.replaceState(null, '', hash);
  const store = createLockscopeStore();
  applyInitialUrl(store);
  const view = renderIn(store, <CheckDesign env={env} session={session} />);
  return { store, view };
}

/** A reload: the page goes, `performance.now` starts again, the address stays. */
function reload(view: { unmount: () => void }, hash = window.location.hash) {
  view.unmount();
  perf = 0;
  return open(hash);
}

const timer = () => screen.getByTestId('interview-timer');
const entries = () => within(screen.getByTestId('transcript')).getAllByRole('listitem').map((li) => li.textContent);

beforeEach(() => {
  sessionStorage.clear();
  perf = 0;
  wall = 1_700_000_000_000;
});

describe('an interview across a reload of its link', () => {
  it("keeps the transcript, the timer's start and the starting design (the candidate's edits in the address do not become it)", async () => {
    const user = userEvent.setup();
    let { store, view } = open(candidateLink());
    expect(store.getState().interview).toMatchObject({ role: 'candidate', id: ID });
    const base = store.getState().interviewBase;
    expect(base).not.toBeNull();
    await user.click(screen.getByTestId('check-my-design'));
    await waitFor(() => expect(screen.getByTestId('transcript')).toBeInTheDocument());
    const before = entries();
    expect(before).toHaveLength(1);
    // 65 s later the candidate has changed the design (the address bar follows), then reloads.
    perf += 65_000;
    wall += 65_000;
    act(() => { store.getState().setScenario(preset.withFix); });
    window.history.replaceState(null, '', hashOf(store.getState()));
    ({ store, view } = reload(view));
    expect(store.getState().composed.mechanism).toEqual(preset.withFix.mechanism);
    expect(entries()).toEqual(before);
    expect(timer()).toHaveTextContent('Time 1:05');
    expect(store.getState().interviewBase).toEqual(base);
    // The clock goes on from where it was, and so does the next check's time in the transcript.
    perf += 10_000;
    wall += 10_000;
    await act(async () => { await new Promise((r) => setTimeout(r, 1100)); });
    expect(timer()).toHaveTextContent('Time 1:15');
    view.unmount();
  });

  it('a reload before the first check keeps the timer', async () => {
    let { view } = open(candidateLink());
    wall += 42_000;
    perf += 42_000;
    ({ view } = reload(view));
    expect(timer()).toHaveTextContent('Time 0:42');
    expect(screen.queryByTestId('transcript')).toBeNull();
    view.unmount();
  });

  it("another interview's link, in the same tab, shows none of this one's transcript and starts its own clock", async () => {
    const user = userEvent.setup();
    let { view } = open(candidateLink());
    await user.click(screen.getByTestId('check-my-design'));
    await waitFor(() => expect(screen.getByTestId('transcript')).toBeInTheDocument());
    wall += 30_000;
    perf += 30_000;
    // Loaded afresh …
    ({ view } = reload(view, candidateLink({ d: 'another-interview-id-42' })));
    expect(screen.queryByTestId('transcript')).toBeNull();
    expect(timer()).toHaveTextContent('Time 0:00');
    // … or pasted into the address bar of the open page (no reload: the same store, as on hashchange).
    const first = reload(view, candidateLink());
    expect(entries()).toHaveLength(1);
    window.history.replaceState(null, '', candidateLink({ d: 'another-interview-id-42' }));
    act(() => { applyInitialUrl(first.store); });
    expect(first.store.getState().interview?.id).toBe('another-interview-id-42');
    expect(screen.queryByTestId('transcript')).toBeNull();
    expect(first.store.getState().transcript).toEqual([]);
    first.view.unmount();
  });

  it('an entry that is hand-edited, stale or not this interview\'s is ignored: the link opens as without it, nothing thrown', () => {
    const iv: InterviewSetup = { role: 'candidate', kinds: ['pause'], maxFaults: 1, id: ID, notes: null };
    const key = sessionKeyOf(iv)!;
    const good = { who: `candidate:${ID}`, startedAt: wall - 5_000, base: preset.withoutFix, transcript: [{ atMs: 1_000, design: 'the starting design', result: 'Broken' }] };
    const bad: unknown[] = [
      '{not json',
      JSON.stringify({ ...good, transcript: 'x' }),
      JSON.stringify({ ...good, startedAt: -1 }),
      JSON.stringify({ ...good, extra: 1 }),
      JSON.stringify({ ...good, who: 'candidate:another-interview-id-42' }),
      JSON.stringify({ ...good, startedAt: wall + 60_000 }), // a start in the future (a clock set back)
      JSON.stringify({ ...good, base: { ...preset.withoutFix, workers: 'A' } }),
      JSON.stringify(null),
    ];
    for (const raw of bad) {
      sessionStorage.setItem(key, raw as string);
      expect(readSession(session, iv)).toBeNull();
      const { store, view } = open(candidateLink());
      expect(store.getState().composed.workers).toEqual(preset.withoutFix.workers);
      expect(store.getState().transcript).toEqual([]);
      expect(timer()).toHaveTextContent('Time 0:00');
      // The next save replaces it.
      expect(readSession(session, iv)?.transcript).toEqual([]);
      view.unmount();
    }
    sessionStorage.setItem(key, JSON.stringify(good));
    expect(readSession(session, iv)?.transcript).toEqual(good.transcript);
    // Storage that throws keeps nothing and breaks nothing.
    const refusing: SessionEnv = { storage: () => ({ getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('quota'); }, removeItem: () => { throw new Error('denied'); } }), wallNow: () => wall };
    expect(readSession(refusing, iv)).toBeNull();
    expect(() => writeSession(refusing, iv, { startedAt: wall, base: preset.withoutFix, transcript: [] })).not.toThrow();
  });

  it("each side keeps its own: the interviewer's link (by its id, else its token) never shows the candidate's transcript", () => {
    const notes = { t: 'T'.repeat(22), a: '', q: [], r: [] };
    const cand: InterviewSetup = { role: 'candidate', kinds: [], maxFaults: 1, id: ID, notes: null };
    const intv: InterviewSetup = { role: 'interviewer', kinds: [], maxFaults: 1, id: ID, notes };
    const { id: _drop, ...oldIntv } = intv;
    void _drop;
    expect(new Set([sessionKeyOf(cand), sessionKeyOf(intv), sessionKeyOf(oldIntv)]).size).toBe(3);
    writeSession(session, cand, { startedAt: wall, base: preset.withoutFix, transcript: [{ atMs: 0, design: 'x', result: 'y' }] });
    expect(readSession(session, intv)).toBeNull();
    // A candidate's link made before interviews had an id has nothing to be kept under.
    expect(sessionKeyOf({ ...cand, id: undefined })).toBeNull();
  });
});
