// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { act } from 'react';
import userEvent from '@testing-library/user-event';
import { MechanismPanel } from './MechanismPanel';
import { createLockscopeStore, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { PRESETS, runScenario } from '../../sim';
import { applyChanges, setupChanges } from './setupDiff';

describe('MechanismPanel', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('a lease TTL of 0 is said next to the field and kept as typed; the run keeps the last valid TTL', async () => {
    const user = userEvent.setup();
    renderIn(store, <MechanismPanel />);
    const ttl = screen.getByLabelText('Lease TTL in seconds');
    await user.clear(ttl);
    await user.type(ttl, '0');
    expect(ttl).toHaveValue(0);
    expect(ttl).toHaveAttribute('aria-invalid', 'true');
    // Issue 9: with the real system's reason.
    expect(ttl).toHaveAccessibleDescription("Must be more than 0 s. Why: Redis refuses SET … PX 0 (or a negative TTL): \"ERR invalid expire time in 'set' command\". The run keeps 30 s until it is fixed.");
    expect(store.getState().scenario.lease.ttlMs).toBe(30_000);
    await user.type(ttl, '5');
    expect(ttl).not.toHaveAttribute('aria-invalid');
    expect(store.getState().scenario.lease.ttlMs).toBe(5_000);
  });

  it('describes the selected option, not a fixed sentence', async () => {
    const user = userEvent.setup();
    renderIn(store, <MechanismPanel />);
    const release = screen.getByLabelText('Lease release');
    expect(release).toHaveAccessibleDescription('deletes only if the key is still ours');
    await user.selectOptions(release, 'del');
    expect(screen.getByLabelText('Lease release')).toHaveAccessibleDescription('DEL removes the key, whoever holds it');
    expect(screen.getByLabelText('Fencing token (checked by the destination)')).toHaveAccessibleDescription('destination accepts any write');
  });

  it('checks the variant the setup equals, and neither once it equals neither', async () => {
    const user = userEvent.setup();
    renderIn(store, <MechanismPanel />);
    expect(screen.getByRole('radio', { name: 'without the fix' })).toBeChecked();
    // Fencing on: the setup is now the preset "with the fix".
    await user.click(screen.getByLabelText('Fencing token (checked by the destination)'));
    expect(screen.getByRole('radio', { name: 'with the fix' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'without the fix' })).not.toBeChecked();
    await user.selectOptions(screen.getByLabelText('Lease release'), 'del');
    expect(screen.getByRole('radio', { name: 'with the fix' })).not.toBeChecked();
    expect(screen.getByRole('radio', { name: 'without the fix' })).not.toBeChecked();
    expect(screen.getByTestId('variant-edited')).toHaveTextContent('matches neither');
  });

  it('a switch that cannot change this run is disabled, with the reason as visible text', async () => {
    store.getState().loadPreset('remote-call-in-txn', 'with');
    renderIn(store, <MechanismPanel />);
    // Busy while the statuses are computed: the panel is about to fold the inert switches away.
    const panel = screen.getByRole('region', { name: 'Mechanism' });
    expect(panel).toHaveAttribute('aria-busy', 'true');
    await vi.waitFor(() => expect(panel).toHaveAttribute('aria-busy', 'false'));
    // Decided after the first frame (one run per value, in short slices); it then moves below the others.
    await vi.waitFor(() => expect(screen.getByLabelText('Check the durable job record first')).toBeDisabled(), { timeout: 10_000 });
    const jobRecord = screen.getByLabelText('Check the durable job record first');
    expect(jobRecord).toHaveAccessibleDescription(/^No effect here: the job already writes its record/);
    // Such switches wait under one line, so the panel stays short; opened, each says why.
    const more = screen.getByTestId('inert-switches');
    expect(more).toHaveTextContent(/^\d+ more switch(es)?: no effect in this run/);
    await userEvent.click(within(more).getByText(/no effect in this run/));
    expect(screen.getByText(/No effect here: the job already writes its record/)).toBeVisible();
  });

  it('in renew-partition, stop-on-renewal-failure can change the run and stays enabled', async () => {
    store.getState().loadPreset('renew-partition', 'without');
    renderIn(store, <MechanismPanel />);
    const stop = screen.getByLabelText('Stop when a renewal fails');
    expect(stop).toBeEnabled();
    expect(stop).toHaveAccessibleDescription('a failed renewal is ignored');
  });

  it('judges the run on screen, faults included: a job error makes "On error" matter', async () => {
    store.getState().loadPreset('admin-bypass', 'without');
    renderIn(store, <MechanismPanel />);
    await vi.waitFor(() => expect(screen.getByLabelText('On a job error')).toBeDisabled(), { timeout: 10_000 });
    act(() => store.getState().addFault({ kind: 'jobError', worker: 'A', atMs: 30 }));
    await vi.waitFor(() => expect(screen.getByLabelText('On a job error')).toBeEnabled(), { timeout: 10_000 });
    expect(screen.getByLabelText('On a job error')).toHaveAccessibleDescription('returned with its session locks');
  });

  it('for every preset, says what "with the fix" changes — steps and settings too — and those changes, applied, give the fixed verdict', () => {
    for (const p of PRESETS) {
      const st = createLockscopeStore();
      act(() => st.getState().loadPreset(p.id, 'without'));
      const { unmount } = renderIn(st, <MechanismPanel />);
      const shown = screen.getByTestId('fix-changes');
      expect(shown).toHaveTextContent(`The fix: ${p.fix}.`);
      // The one-line summary names the step changes when there are any.
      expect(within(shown).getByRole('button', { name: /^The fix changes: / }).textContent!.includes('the steps')).toBe(setupChanges(p.withoutFix, p.withFix).some((c) => c.kind === 'steps'));
      const items = within(shown).queryAllByRole('listitem', { hidden: true }).map((li) => li.textContent);
      const changes = setupChanges(p.withoutFix, p.withFix);
      expect(items).toEqual(changes.map((c) => c.text));
      // What the panel names is the whole fix: applied to the variant without it, the fixed variant's verdict.
      expect(runScenario(applyChanges(p.withoutFix, changes)).verdict).toEqual(runScenario(p.withFix).verdict);
      unmount();
    }
  });

  it('serializable-retry: the fix is the charge moved after COMMIT, not the idempotency key alone', () => {
    act(() => store.getState().loadPreset('serializable-retry', 'with'));
    renderIn(store, <MechanismPanel />);
    const toggle = within(screen.getByTestId('fix-changes')).getByRole('button', { name: /^The fix changes: / });
    expect(toggle).toHaveTextContent('The fix changes: the steps, 1 switch ▸');
    act(() => toggle.click());
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('A, B: call POST /v1/charges (500 ms) moves after COMMIT')).toBeVisible();
    const items = within(screen.getByTestId('fix-changes')).getAllByRole('listitem', { hidden: true });
    expect(items[0]).toHaveTextContent('A, B: call POST /v1/charges (500 ms) moves after COMMIT');
    expect(items[1]).toHaveTextContent('Idempotency key (honoured by the destination): on (was off)');
  });

  describe("the interview candidate's panel (found by a newcomer)", () => {
    const candidate = { role: 'candidate' as const, kinds: [], maxFaults: 1, notes: null };

    it('fence-ignored: the unticked fencing switch says, in neutral facts, that the workers take the tokens the log shows', async () => {
      act(() => { store.getState().loadPreset('fence-ignored', 'without'); store.getState().setInterview(candidate); });
      renderIn(store, <MechanismPanel />);
      const fencing = screen.getByLabelText('Fencing token (checked by the destination)');
      expect(fencing).not.toBeChecked();
      // The full label (it says what the box controls), and the other side as a fact: no hint of what follows.
      expect(screen.getByText('Fencing token (checked by the destination)')).toBeVisible();
      expect(fencing).toHaveAccessibleDescription('Workers take a token: yes (Redis INCR)');
      expect(screen.queryByText('destination accepts any write')).toBeNull();
      // Ticked, both sides are on; unticked again, both are off — the facts follow.
      await userEvent.click(fencing);
      expect(store.getState().scenario.mechanism.fencing && store.getState().scenario.destination.checksFencing).toBe(true);
      await userEvent.click(screen.getByLabelText('Fencing token (checked by the destination)'));
      expect(screen.getByLabelText('Fencing token (checked by the destination)')).toHaveAccessibleDescription('Workers take a token: no');
    });

    it('says the facts for every two-sided switch, whatever they are (a line shown only when the sides disagree would itself tell)', () => {
      act(() => { store.getState().loadPreset('export-lease-expiry', 'without'); store.getState().setInterview(candidate); });
      renderIn(store, <MechanismPanel />);
      expect(screen.getByTestId('sw-fencing-facts')).toHaveTextContent('Workers take a token: no');
    });

    it('outside an interview the facts show only where the sides disagree (the hint explains the rest)', () => {
      act(() => store.getState().loadPreset('fence-ignored', 'without'));
      const { unmount } = renderIn(store, <MechanismPanel />);
      expect(screen.getByLabelText('Fencing token (checked by the destination)')).toHaveAccessibleDescription('destination accepts any write Workers take a token: yes (Redis INCR)');
      unmount();
      act(() => store.getState().loadPreset('export-lease-expiry', 'without'));
      renderIn(store, <MechanismPanel />);
      expect(screen.queryByTestId('sw-fencing-facts')).toBeNull();
    });

    it.each(PRESETS.map((p) => [p.id, p.id] as const))('%s: no switch is shown as having no effect — every one enabled, in one list, no "(same run)" option', async (_x, id) => {
      act(() => { store.getState().loadPreset(id, 'without'); store.getState().setInterview(candidate); });
      const { container } = renderIn(store, <MechanismPanel />);
      // Long enough for the statuses to have arrived, were they used.
      await act(async () => { await new Promise((r) => setTimeout(r, 150)); });
      expect(screen.getByRole('region', { name: 'Mechanism' })).toHaveAttribute('aria-busy', 'false');
      expect(screen.queryByTestId('inert-switches')).toBeNull();
      expect(container.textContent).not.toMatch(/no effect|same run/);
      for (const el of container.querySelectorAll('input, select')) expect(el).toBeEnabled();
      for (const el of container.querySelectorAll('[title]')) expect(el.getAttribute('title')).not.toMatch(/no effect/);
    });
  });
});
