// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { findPreset, parseScenario, runScenario, renderTranscript, buildTranscript, PRESETS } from '../../sim';
import { hashOf, readHash } from '../url/urlState';
import etcdFixture from '../../sim/scenario/fixtures/scenario-v2-etcd.json';
import { sessionFileName, transcriptFileName, TranscriptExport, TRANSCRIPT_SYNC_EVENTS, unchangedPreset } from './TranscriptExport';
import { generatedScenario } from '../../../bench/uiScenario';
import { downloadBase, exportNames } from './files';

describe('TranscriptExport ("Run it yourself")', () => {
  it('names the whole transcript .txt for every preset (a Redis-only one was saved as .sql) and each session by its tool', () => {
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) {
      const t = buildTranscript(runScenario(s));
      expect(transcriptFileName(p.id)).toBe(`${p.id}-transcript.txt`);
      for (const x of t.sessions) expect(sessionFileName(p.id, x)).toMatch(x.client === 'psql' ? /\.sql$/ : /\.txt$/);
    }
  });

  const preset = findPreset('lock-order-deadlock')!;

  it('knows a preset run from an edited one, so the fidelity claim is never borrowed', () => {
    expect(unchangedPreset(preset.withoutFix)).toEqual({ id: 'lock-order-deadlock', variant: 'without the fix' });
    expect(unchangedPreset(preset.withFix)).toEqual({ id: 'lock-order-deadlock', variant: 'with the fix' });
    expect(unchangedPreset({ ...preset.withFix, seed: preset.withFix.seed + 1 })).toBeNull();
  });

  it('a preset opened from a link (or a reload) is still that preset: the claim does not depend on the key order a link decodes to', () => {
    for (const p of PRESETS) {
      for (const [variant, scenario] of [['without', p.withoutFix], ['with', p.withFix]] as const) {
        const intent = readHash(hashOf({ composed: scenario, variant, view: 'simulate', cursorIndex: 0, compareTarget: { kind: 'otherVariant' } }));
        const opened = intent.kind === 'shared' ? intent.scenario : intent.kind === 'preset' ? (variant === 'with' ? findPreset(intent.presetId)!.withFix : findPreset(intent.presetId)!.withoutFix) : null;
        expect(opened && unchangedPreset(opened), `${p.id} ${variant}`).toEqual({ id: p.id, variant: variant === 'with' ? 'with the fix' : 'without the fix' });
      }
    }
  });

  it('says why a run whose lease lives in etcd has no transcript to replay', () => {
    const parsed = parseScenario(etcdFixture);
    if (!parsed.ok) throw new Error('the etcd fixture does not validate');
    render(<TranscriptExport run={runScenario(parsed.scenario)} />);
    expect(screen.getByTestId('transcript-export')).toHaveTextContent('its etcd requests are outside what a transcript replays');
  });

  it('offers the combined transcript and one file per session, and copies the text the CLI prints', async () => {
    const run = runScenario(preset.withoutFix);
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    render(<TranscriptExport run={run} />);
    expect(screen.getByRole('heading', { name: 'Run it yourself' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'lock-order-deadlock-without-fix-c1.sql' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'lock-order-deadlock-without-fix-c2.sql' })).toBeInTheDocument();
    expect(screen.getByTestId('fidelity')).toHaveTextContent(/^(Checked against PostgreSQL [\d.]+: 0 differences in all \d+ steps|Not checked in this build)$/);
    await userEvent.click(screen.getByRole('button', { name: 'Copy transcript' }));
    expect(writeText).toHaveBeenCalledWith(renderTranscript(buildTranscript(run), 'without the fix'));
    expect(screen.getByRole('status')).toHaveTextContent(/Copied the transcript/);
  });

  it('keeps the transcript back while the rest of the run is hidden (predict mode)', () => {
    render(<TranscriptExport run={runScenario(preset.withoutFix)} hidden />);
    expect(screen.queryByRole('button', { name: 'Copy transcript' })).toBeNull();
    expect(screen.getByText(/offered once the run is revealed/)).toBeInTheDocument();
  });

  it('says which calls it does not replay: a queue run has no session, and says where its calls go instead of claiming a server', () => {
    const run = runScenario(findPreset('queue-redelivery')!.withoutFix);
    render(<TranscriptExport run={run} />);
    expect(screen.getByText(/This run sends nothing to PostgreSQL or Redis/)).toBeInTheDocument();
    const outside = screen.getByTestId('not-replayed');
    expect(outside).toHaveTextContent(/the SQS queue charges \(Lockscope's model of SQS, no server\): ReceiveMessage ×\d+, DeleteMessage ×2/);
    expect(outside).toHaveTextContent('the destination POST /v1/charges (an external API, no server): 2 requests');
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not replayed against a server: this run touches no PostgreSQL or Redis');
    expect(screen.getByTestId('fidelity').textContent).not.toMatch(/Checked against/);
  });

  it('a run with sessions lists what it leaves out beside them', () => {
    render(<TranscriptExport run={runScenario(findPreset('serializable-retry')!.withFix)} />);
    expect(screen.getByTestId('not-replayed')).toHaveTextContent('Not replayed (no server the transcript names receives these; they are comments where they occur):the destination POST /v1/charges');
    expect(screen.getByTestId('fidelity')).toHaveTextContent(/^(Checked against PostgreSQL [\d.]+: 0 differences in all \d+ steps|Not checked in this build)$/);
  });

  it('names every download with the variant (-without-fix, -with-fix, -edited), the buttons too; a candidate\'s names stay neutral (issue 13)', () => {
    for (const p of PRESETS) for (const [s, suffix] of [[p.withoutFix, '-without-fix'], [p.withFix, '-with-fix'], [{ ...p.withoutFix, seed: p.withoutFix.seed + 1 }, '-edited']] as const) {
      const base = downloadBase(s, false);
      expect(base).toBe(`${p.id}${suffix}`);
      const n = exportNames(s, 'held', true, false);
      for (const name of [n.svg, n.png, n.json]) expect(name.startsWith(`${p.id}${suffix}-`) || name === `${p.id}${suffix}.json`, name).toBe(true);
      expect(downloadBase(s, true)).toBe(p.id);
      for (const name of Object.values(exportNames(s, 'held', true, true))) expect(name).not.toMatch(/with-fix|without-fix|edited/);
    }
    const run = runScenario(findPreset('failover-fence')!.withFix);
    const { unmount } = render(<TranscriptExport run={run} />);
    expect(screen.getByRole('button', { name: 'failover-fence-with-fix-redis.txt' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'failover-fence-with-fix-replica.txt' })).toBeInTheDocument();
    unmount();
  });

  it('names redis-cli files .txt', () => {
    expect(sessionFileName('x', { id: 'redis', client: 'redis-cli' })).toBe('x-redis.txt');
  });

  it('a run longer than TRANSCRIPT_SYNC_EVENTS gets its transcript after the frame: first a placeholder, then the same buttons and text', async () => {
    const run = runScenario(generatedScenario());
    expect(run.events.length).toBeGreaterThan(TRANSCRIPT_SYNC_EVENTS);
    render(<TranscriptExport run={run} />);
    expect(screen.getByTestId('transcript-export')).toHaveAttribute('aria-busy', 'true');
    expect(screen.queryByRole('button', { name: 'Copy transcript' })).toBeNull();
    const copy = await screen.findByRole('button', { name: 'Copy transcript' });
    expect(screen.getByTestId('transcript-export')).not.toHaveAttribute('aria-busy');
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await userEvent.click(copy);
    expect(writeText).toHaveBeenCalledWith(renderTranscript(buildTranscript(run), undefined));
  });
});
