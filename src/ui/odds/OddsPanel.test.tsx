// @vitest-environment jsdom
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createLockscopeStore, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { OddsPanel, defaultForm, inputOf } from './OddsPanel';
import { OddsSection } from './OddsSection';
import { startOddsInline, type StartOdds } from './oddsClient';
import { fmtP, fmtSeconds, heatOpacity } from './OddsCharts';
import { computeOdds } from '../../sim/search/odds';
import { findPreset } from '../../sim';

async function setField(label: string, value: string) {
  const input = screen.getByLabelText(label);
  await userEvent.clear(input);
  await userEvent.type(input, value);
}

/** Small R, few TTLs: a few dozen runs. */
async function smallRun() {
  await setField('Lease TTLs (s)', '5, 120');
  await setField('Heat-map pause lengths (s)', '1, 10');
  await setField('Runs per TTL', '12');
  await setField('Runs per heat-map cell', '6');
}

describe('OddsPanel', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
    store.getState().loadPreset('export-lease-expiry');
  });

  it('runs the odds with a small R and draws the line chart with its band and the heat map with its legend', async () => {
    const { container } = renderIn(store, <OddsPanel start={startOddsInline} />);
    await smallRun();
    await userEvent.click(screen.getByRole('button', { name: 'Run the odds' }));
    const result = await screen.findByLabelText('The odds', {}, { timeout: 20_000 });
    // The line chart: one point per TTL, the band, the current TTL (30 s) marked.
    const line = container.querySelector('svg.odds-line-chart')!;
    expect(line.querySelectorAll('circle.odds-point')).toHaveLength(2);
    expect(line.querySelector('path.odds-band')!.getAttribute('d')).toMatch(/^M/);
    expect(line.textContent).toContain('current TTL 30 s');
    // 5 s is far below the 25 s job: the lease always expires under it. 120 s is above any pause.
    expect(line.getAttribute('aria-label')).toMatch(/^P\(violation\) against lease TTL, 12 runs per TTL: 5 s 100% .*; 120 s 0% \(95% CI 0%–24%\)$/);
    // The heat map: 2 TTLs × 2 pauses, a legend, safe cells at 120 s.
    const heat = container.querySelector('svg.odds-heat-map')!;
    expect(heat.querySelectorAll('g.odds-cell')).toHaveLength(4);
    expect(heat.querySelector('.odds-legend')!.textContent).toContain('no violation in 6 runs');
    expect(heat.getAttribute('aria-label')).toMatch(/TTL 120 s pause 1 s: 0%; TTL 120 s pause 10 s: 0%$/);
    expect(within(result).getByRole('status')).toHaveTextContent('From a TTL of 120 s up, no run of 12 violated');
    // The summary (pauses drawn from p50/p99) and the heat map (one exact pause) say which question each answers.
    expect(screen.getByTestId('odds-two-questions')).toHaveTextContent(/The line: .*p50 and p99.*The heat map: how often it breaks if one worker pauses exactly that long/);
    // Every colour comes from the theme (light, dark, projector): CSS variables, or the axes' currentColor.
    for (const el of container.querySelectorAll('svg *')) {
      const e = el as SVGElement;
      for (const prop of ['fill', 'stroke'] as const) {
        const styled = e.style.getPropertyValue(prop);
        if (styled) expect(styled, `${e.tagName} ${prop}`).toMatch(/^(var\(--[a-z-]+\)|none)$/);
        const attr = e.getAttribute(prop);
        if (attr) expect(attr, `${e.tagName} ${prop} attribute`).toMatch(/^(none|currentColor)$/);
      }
      const color = e.style.getPropertyValue('color');
      if (color) expect(color).toMatch(/^var\(--[a-z-]+\)$/);
    }
  });

  it('shows what the core computes for the same inputs (same seed, same numbers)', async () => {
    const { container } = renderIn(store, <OddsPanel start={startOddsInline} />);
    await smallRun();
    await setField('Seed', '9');
    await setField('Lease TTLs (s)', '25, 30');
    await userEvent.click(screen.getByRole('button', { name: 'Run the odds' }));
    await screen.findByLabelText('The odds', {}, { timeout: 20_000 });
    const f = { ...defaultForm(findPreset('export-lease-expiry')!.withoutFix), ttlsS: '25, 30', pausesS: '1, 10', runs: '12', heatRuns: '6', seed: '9' };
    const expected = computeOdds(store.getState().scenario, inputOf(f).input);
    const titles = [...container.querySelectorAll('circle.odds-point title')].map((t) => t.textContent);
    expect(titles).toEqual(expected.points.map((p) => expect.stringContaining(`: ${p.violations} of 12 runs violated`)));
  });

  it('shows progress and cancels: no result arrives after Cancel', async () => {
    let cb: Parameters<StartOdds>[1] | null = null;
    const cancel = vi.fn();
    const start: StartOdds = (_req, callbacks) => { cb = callbacks; return { cancel }; };
    renderIn(store, <OddsPanel start={start} />);
    await userEvent.click(screen.getByRole('button', { name: 'Run the odds' }));
    act(() => cb!.onProgress({ done: 50, total: 200 }));
    expect(screen.getByRole('progressbar', { name: 'Runs done' })).toHaveAttribute('value', '50');
    expect(screen.getByText('50 of 200 runs')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Run the odds' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(cancel).toHaveBeenCalled();
    expect(screen.getByRole('status')).toHaveTextContent('Cancelled.');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('refuses bad inputs in words and keeps Run disabled', async () => {
    renderIn(store, <OddsPanel start={startOddsInline} />);
    await setField('Pause p99 (s)', '0.5');
    expect(screen.getByRole('alert')).toHaveTextContent('p99 must be at least p50');
    expect(screen.getByRole('button', { name: 'Run the odds' })).toBeDisabled();
  });

  it('follows a new scenario\'s TTL in the lists left at their defaults, and keeps what was typed', async () => {
    renderIn(store, <OddsPanel start={startOddsInline} />);
    expect(screen.getByLabelText('Lease TTLs (s)')).toHaveValue('15, 22.5, 30, 37.5, 45, 60, 90');
    await setField('Heat-map pause lengths (s)', '2, 4');
    await setField('Pause p50 (s)', '0.3');
    act(() => store.getState().loadPreset('renew-partition'));
    expect(screen.getByLabelText('Lease TTLs (s)')).toHaveValue('5, 7.5, 10, 12.5, 15, 20, 30');
    expect(screen.getByLabelText('Heat-map pause lengths (s)')).toHaveValue('2, 4');
    expect(screen.getByLabelText('Pause p50 (s)')).toHaveValue('0.3');
  });

  it('says why the odds do not apply to a scenario without a lease', () => {
    store.getState().loadPreset('invoice-race');
    renderIn(store, <OddsPanel start={startOddsInline} />);
    expect(screen.getByText(/Does not apply here\. The odds vary the lease TTL, and this scenario takes no lease/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Run the odds' })).toBeNull();
  });

  it('is a collapsed section that mounts the panel when opened', async () => {
    renderIn(store, <OddsSection />);
    expect(screen.queryByLabelText('Pause p50 (s)')).toBeNull();
    await userEvent.click(screen.getByText('How often? (the odds)'));
    await waitFor(() => expect(screen.getByLabelText('Pause p50 (s)')).toBeInTheDocument());
  });
});

describe('formats', () => {
  it('writes durations without trailing zeros and probabilities as percents', () => {
    expect([fmtSeconds(1_500), fmtSeconds(22_500), fmtSeconds(30_000), fmtSeconds(250)]).toEqual(['1.5 s', '22.5 s', '30 s', '250 ms']);
    expect([fmtP(0), fmtP(0.004), fmtP(0.0456), fmtP(0.5), fmtP(1)]).toEqual(['0%', '0.4%', '4.6%', '50%', '100%']);
    expect(heatOpacity(0.01)).toBeGreaterThan(0.15);
    expect(heatOpacity(1)).toBe(1);
  });
});

describe('inputOf', () => {
  it('reads seconds and percents into ms and probabilities', () => {
    const { input, errors } = inputOf({ p50S: '0.2', p99S: '3', pausePct: '30', crashPct: '2', restartS: '1.5', ttlsS: '10, 22.5 30', pausesS: '', runs: '100', heatRuns: '10', seed: '4' });
    expect(errors).toEqual([]);
    expect(input).toMatchObject({ pauseP50Ms: 200, pauseP99Ms: 3_000, pauseProbability: 0.3, crashRate: 0.02, restartAfterMs: 1_500, ttlsMs: [10_000, 22_500, 30_000], heatPausesMs: [], runsPerTtl: 100, heatRuns: 10, seed: 4 });
    expect(inputOf({ ...defaultForm(findPreset('export-lease-expiry')!.withoutFix), runs: '' }).errors).toContain('runs per TTL must be a whole number, 1 … 100,000');
  });
});
