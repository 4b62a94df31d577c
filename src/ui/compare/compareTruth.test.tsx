// @vitest-environment jsdom
/**
 * The compare view's claims against the runs, over every preset × both variants: "identical" only
 * when the two traces are byte-identical, and a named difference whenever the two sides' setups
 * differ (the steps of queue-redelivery and skip-locked-claim's fixes included).
 */
import { cleanup, screen } from '@testing-library/react';
import { act } from 'react';
import { CompareView } from './CompareView';
import { compareClaim, compareScenario } from './compareScenario';
import { createLockscopeStore, deriveRun } from '../store';
import { renderIn } from '../store/testing';
import { PRESETS, relevantSwitches, runScenario, type Scenario } from '../../sim';
import { canonicalJson } from '../url/urlState';
import type { CompareTarget } from '../store/types';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
afterEach(cleanup);

const setup = (s: Scenario) => canonicalJson({ ...s, id: undefined, title: '', description: '', lesson: '' });

describe('compareClaim over every preset × variant × right-hand side', () => {
  for (const p of PRESETS) {
    for (const variant of ['without', 'with'] as const) {
      it(`${p.id} ${variant} the fix`, () => {
        const left = variant === 'with' ? p.withFix : p.withoutFix;
        const targets: CompareTarget[] = [{ kind: 'otherVariant' }, ...relevantSwitches(left).map((d) => ({ kind: 'switch' as const, switchId: d.id }))];
        for (const target of targets) {
          const right = compareScenario(left, p.id, variant, target);
          const l = runScenario(left);
          const r = runScenario(right);
          const claim = compareClaim(l, r);
          // Identical only when the traces are, byte for byte.
          expect(claim.identical).toBe(JSON.stringify(l.events) === JSON.stringify(r.events));
          if (claim.sameSetup) expect(JSON.stringify(r.events) === JSON.stringify(l.events)).toBe(true);
          // A difference of the setups is always named.
          if (setup(left) !== setup(right)) expect(claim.changes.length, `${target.kind === 'switch' ? target.switchId : 'other variant'}`).toBeGreaterThan(0);
          else expect(claim.changes).toEqual([]);
          for (const c of claim.changes) expect(c.text.trim()).not.toBe('');
        }
        // The other variant is the preset's other variant, its own faults included (a fault at a step follows its step).
        const other = compareScenario(left, p.id, variant, { kind: 'otherVariant' });
        expect(canonicalJson(other)).toBe(canonicalJson(variant === 'with' ? p.withoutFix : p.withFix));
      });
    }
  }
});

describe('CompareView renders what the runs say', () => {
  for (const p of PRESETS) {
    for (const variant of ['without', 'with'] as const) {
      it(`${p.id} ${variant} the fix: "identical" ⇔ byte-identical traces; every difference named`, () => {
        const store = createLockscopeStore();
        act(() => store.getState().loadPreset(p.id, variant));
        act(() => store.getState().setView('compare'));
        renderIn(store, <CompareView />);
        const s = store.getState();
        const left = deriveRun(s.composed);
        const right = deriveRun(compareScenario(s.composed, s.presetId, s.variant, s.compareTarget));
        const sameTrace = JSON.stringify(left.events) === JSON.stringify(right.events);
        const claimsIdentical = screen.queryByTestId('same-mechanism') !== null || screen.queryByTestId('same-run') !== null;
        expect(claimsIdentical).toBe(sameTrace);
        const text = document.body.textContent ?? '';
        expect(text).not.toMatch(/same mechanism/);
        if (setup(left.scenario) !== setup(right.scenario)) {
          const diff = screen.getByTestId('compare-diff');
          for (const c of compareClaim(left, right).changes) expect(diff).toHaveTextContent(c.text);
          expect(diff).toHaveTextContent(`The fix (on the ${variant === 'without' ? 'right' : 'left'}): ${p.fix}`);
        }
        if (!sameTrace) expect(screen.getByTestId('divergence')).toBeInTheDocument();
      });
    }
  }

  it('queue-redelivery and skip-locked-claim: the fix is a change of steps, named as such, and the runs differ', () => {
    for (const [id, words] of [['queue-redelivery', /ChangeMessageVisibility/], ['skip-locked-claim', /drops COMMIT \(after claim the job row\)/]] as const) {
      cleanup();
      const store = createLockscopeStore();
      act(() => store.getState().loadPreset(id, 'without'));
      act(() => store.getState().setView('compare'));
      renderIn(store, <CompareView />);
      expect(screen.queryByTestId('same-mechanism')).toBeNull();
      expect(screen.getByTestId('compare-diff')).toHaveTextContent(words);
      expect(screen.getByTestId('compare-right')).toHaveTextContent('Right: With the fix — different steps (listed above)');
      expect(screen.getByTestId('divergence')).toHaveTextContent('The runs first differ at');
    }
  });

  it('a switch that changes the setup but not this run: named, and said to change nothing here', () => {
    const store = createLockscopeStore();
    // admin-bypass without the fix: no worker waits for the advisory lock, so giving up after 2 s changes nothing.
    act(() => store.getState().loadPreset('admin-bypass', 'without'));
    act(() => store.getState().setView('compare'));
    act(() => store.getState().setCompareTarget({ kind: 'switch', switchId: 'acquireTimeoutMs' }));
    renderIn(store, <CompareView />);
    const s = store.getState();
    const left = deriveRun(s.composed);
    const right = deriveRun(compareScenario(s.composed, s.presetId, s.variant, s.compareTarget));
    expect(JSON.stringify(left.events) === JSON.stringify(right.events)).toBe(true);
    expect(screen.getByTestId('compare-diff')).toHaveTextContent('Give up acquiring after: 2 s (was never)');
    expect(screen.getByTestId('same-run')).toHaveTextContent('both traces are identical');
    expect(screen.queryByTestId('same-mechanism')).toBeNull();
    expect(screen.queryByTestId('divergence')).toBeNull();
  });
});
