// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import { BUILD_FIDELITY, fidelityStatus, NOT_CHECKED, touchesOf, type FidelityReport, type ReportVariant } from './fidelityStatus';
import { buildTranscript, PRESETS, REPLAY_LIMIT_WHY, replayCoverage, runScenario } from '../../sim';
import { coverageOf } from '../../../fidelity/coverage';
import { FidelityLine } from './FidelityLine';
import { readReport, simSourceHash } from '../../../fidelity/report';

/** A coverage where every one of `n` steps was replayed. */
const all = (n: number) => ({ total: n, replayed: [{ from: 1, to: n }], notReplayed: [] });

const report: FidelityReport = {
  version: 2,
  simSourceHash: 'abc123',
  date: '2026-11-30',
  servers: { postgresql: '15.20', redis: '7.0.15' },
  presets: {
    'invoice-race': { withoutFix: { sql: { steps: 8, differences: 0 }, coverage: all(8) }, withFix: { sql: { steps: 10, differences: 0 }, coverage: all(10) } },
    'export-lease-expiry': { withoutFix: { redis: { steps: 30, differences: 0 }, coverage: all(30) }, withFix: { redis: { steps: 12, differences: 1 }, coverage: { total: 31, replayed: [{ from: 1, to: 12 }], notReplayed: [{ from: 13, to: 31, why: 'the replay stopped at its first difference' }] } } },
  },
};

describe('fidelityStatus: a claim only for the sources the report was written for', () => {
  it('present and current: names the servers the run touched (only those), the steps and the differences', () => {
    const s = fidelityStatus({ report, buildSimHash: 'abc123' }, 'invoice-race');
    expect(s).toEqual({
      kind: 'checked', differences: 0,
      text: 'Checked against PostgreSQL 15.20 on 2026-11-30: the transcripts of both variants replayed, without the fix, 0 differences in all 8 steps; with the fix, 0 differences in all 10 steps.',
      short: 'Checked against PostgreSQL 15.20: 0 differences in all 18 steps of both variants',
    });
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }, 'export-lease-expiry')).toMatchObject({ kind: 'checked', differences: 1, short: 'Checked against Redis 7.0.15: 1 difference in the 42 steps replayed; 19 not replayed (the replay stopped at its first difference)' });
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }, 'export-lease-expiry', 'withFix').short).toBe('Checked against Redis 7.0.15: 1 difference in steps 1–12; steps 13–31 not replayed (the replay stopped at its first difference)');
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }, 'export-lease-expiry').text).toContain('Not replayed: the file store exports/2026-11-30.csv (Lockscope\'s model, no server).');
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }).text).toBe('Checked against PostgreSQL 15.20 / Redis 7.0.15 on 2026-11-30: the transcripts of 2 presets replayed, 1 difference — the model and the servers disagree here in the 60 steps replayed. Not replayed: 19 steps of 1 preset variant (the replay stopped at its first difference); each preset\'s own line, on its card and in its Run it yourself, names the steps. The SQS queue and the destinations are Lockscope\'s models, never replayed.');
  });

  it('a run that touches no server is not "checked against PostgreSQL / Redis": it says so, and what stays a model', () => {
    for (const info of [{ report, buildSimHash: 'abc123' }, { report: null, buildSimHash: 'abc123' }]) {
      const s = fidelityStatus(info, 'queue-redelivery');
      expect(s).toMatchObject({ kind: 'model', short: 'Not replayed against a server: these runs touch no PostgreSQL or Redis' });
      expect(s.text).toContain('the SQS queue charges and the external API POST /v1/charges are Lockscope\'s models, not servers');
    }
  });

  it('absent: "not checked in this build"', () => {
    expect(fidelityStatus({ report: null, buildSimHash: 'abc123' }, 'invoice-race')).toEqual({ kind: 'unchecked', text: NOT_CHECKED, short: 'Not checked in this build' });
  });

  it('written for other sources (stale): "not checked in this build", never the old claim', () => {
    expect(fidelityStatus({ report, buildSimHash: 'def456' }, 'invoice-race').kind).toBe('unchecked');
    expect(fidelityStatus({ report, buildSimHash: 'def456' }).text).toBe(NOT_CHECKED);
  });

  it('a preset the run did not replay is not checked', () => {
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }, 'thumbnail')).toMatchObject({ kind: 'unchecked', short: 'Not checked in this build' });
  });

  it('names PgBouncer only when the run went through it and the replay did too', () => {
    const pgb = { withoutFix: { sql: { steps: 7, differences: 0 }, coverage: all(7), viaPgBouncer: true }, withFix: { sql: { steps: 11, differences: 0 }, coverage: all(11), viaPgBouncer: true } };
    const withPgb: FidelityReport = { ...report, servers: { ...report.servers, pgbouncer: '1.22.1' }, presets: { 'pooler-session-lock': pgb, 'invoice-race': { withoutFix: { sql: { steps: 8, differences: 0 }, coverage: all(8), viaPgBouncer: true } } } };
    expect(fidelityStatus({ report: withPgb, buildSimHash: 'abc123' }, 'pooler-session-lock').text).toMatch(/^Checked against PostgreSQL 15.20 \/ PgBouncer 1.22.1 on/);
    // invoice-race has no pooler: PgBouncer is not named, whatever the report says.
    expect(fidelityStatus({ report: withPgb, buildSimHash: 'abc123' }, 'invoice-race', 'withoutFix').text).not.toContain('PgBouncer');
    // Behind a pooler but replayed on PostgreSQL directly: PgBouncer is not claimed, and the text says so.
    const direct = { ...withPgb, presets: { 'pooler-session-lock': { withoutFix: { sql: { steps: 7, differences: 0 }, coverage: all(7) }, withFix: { sql: { steps: 11, differences: 0 }, coverage: all(11) } } } };
    const s = fidelityStatus({ report: direct, buildSimHash: 'abc123' }, 'pooler-session-lock');
    expect(s.short).toBe('Checked against PostgreSQL 15.20: 0 differences in all 18 steps of both variants');
    expect(s.text).toContain('PgBouncer is modelled but not in the replay');
  });
});

/**
 * A current report as a clean fidelity run writes it: each preset variant's transcript replayed
 * as `fidelity/presetReplay.ts` replays it (every step `replayCoverage` calls replayable, none
 * differing), its coverage as `coverageOf` records it.
 */
function reportOfTranscripts(): FidelityReport {
  const presets: Record<string, Record<string, unknown>> = {};
  for (const p of PRESETS) {
    presets[p.id] = {};
    for (const v of ['withoutFix', 'withFix'] as const) {
      const t = buildTranscript(runScenario(p[v]));
      const replayable = new Set(replayCoverage(t).replayable);
      const ranOf = (redis: boolean) => t.entries.flatMap((e) => (e.kind !== 'note' && (e.kind === 'redis') === redis && replayable.has(e.n) ? [e.n] : []));
      const hasSql = t.sessions.some((s) => s.client === 'psql');
      const hasRedis = t.sessions.some((s) => s.client === 'redis-cli');
      const sql = hasSql ? { ranSteps: ranOf(false), outcome: 'agree' as const } : undefined;
      const redis = hasRedis ? { ranSteps: ranOf(true), outcome: 'agree' as const } : undefined;
      presets[p.id]![v] = {
        ...(sql ? { sql: { steps: sql.ranSteps.length, differences: 0 } } : {}), ...(redis ? { redis: { steps: redis.ranSteps.length, differences: 0 } } : {}),
        coverage: coverageOf(t, sql, redis), viaPgBouncer: false,
      };
    }
  }
  return { version: 2, simSourceHash: 'current', date: '2026-12-01', servers: { postgresql: '15.20', redis: '7.0.15', pgbouncer: '1.22.1' }, presets: presets as FidelityReport['presets'] };
}

/** The servers a "Checked against …" line names. */
const named = (line: string) => new Set(/^Checked against (.*?)(?: \(|: | on )/.exec(line)?.[1]?.split(' / ').map((x) => x.replace(/ [\d.]+$/, '')) ?? []);

describe('the fidelity claim names only the servers the run touches, for every preset and variant', () => {
  const info = { report: reportOfTranscripts(), buildSimHash: 'current' };
  for (const p of PRESETS) {
    it(p.id, () => {
      const union = new Set<string>();
      for (const v of ['withoutFix', 'withFix'] as ReportVariant[]) {
        const t = touchesOf(runScenario(p[v]));
        const want = new Set([...(t.postgresql ? ['PostgreSQL'] : []), ...(t.redis ? ['Redis'] : [])]);
        want.forEach((x) => union.add(x));
        const s = fidelityStatus(info, p.id, v);
        if (want.size === 0) {
          // No server: never "checked against"; what stays a model is named.
          expect(s.kind).toBe('model');
          expect(s.short).toBe('Not replayed against a server: this run touches no PostgreSQL or Redis');
          if (t.queue) expect(s.text).toContain('the SQS queue');
          if (t.destination) expect(s.text).toContain(t.destination);
        } else {
          expect(s.kind).toBe('checked');
          expect(named(s.short)).toEqual(want);
          expect(named(s.text)).toEqual(want);
          if (t.queue) expect(s.text).toContain(`${t.queue}`);
          if (t.destination) expect(s.text).toContain(`Not replayed: ${t.destination}`);
        }
      }
      // The catalogue card (both variants): the servers either run touches, no other.
      const card = fidelityStatus(info, p.id);
      if (union.size === 0) expect(card.kind).toBe('model');
      else expect(named(card.short)).toEqual(union);
    });
  }
});

describe('(the fixture)', () => {
  it('covers every preset', () => {
    expect(Object.keys(reportOfTranscripts().presets)).toHaveLength(PRESETS.length);
  });
});

describe('the build hands the app its report and the hash of its own sources', () => {
  it('BUILD_FIDELITY is the report on disk (or none) and simSourceHash() of src/sim', () => {
    expect(BUILD_FIDELITY.buildSimHash).toBe(simSourceHash());
    expect(BUILD_FIDELITY.report).toEqual(readReport());
  });

  it('simSourceHash ignores tests and moves with any model source', () => {
    expect(simSourceHash()).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('FidelityLine', () => {
  it('shows the claim when the report is current, and "not checked in this build" when absent or stale', () => {
    const { rerender } = render(<FidelityLine presetId="invoice-race" info={{ report, buildSimHash: 'abc123' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Checked against PostgreSQL 15.20: 0 differences');
    rerender(<FidelityLine presetId="queue-redelivery" info={{ report, buildSimHash: 'abc123' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not replayed against a server: these runs touch no PostgreSQL or Redis');
    expect(screen.getByTestId('fidelity').textContent).not.toMatch(/Checked against/);
    rerender(<FidelityLine presetId="invoice-race" info={{ report: null, buildSimHash: 'abc123' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not checked in this build');
    rerender(<FidelityLine presetId="invoice-race" info={{ report, buildSimHash: 'other' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not checked in this build');
    rerender(<FidelityLine presetId="invoice-race" edited info={{ report, buildSimHash: 'abc123' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not checked: this run was edited');
  });
});

/** The step numbers a text's ranges name (`steps 1–3, 5 and 7–9`). */
const numbersIn = (ranges: string): number[] => ranges.split(/, | and /).flatMap((x) => {
  const [a, b] = x.split('–').map(Number);
  return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
});

describe('a claim of "0 differences" is never made over steps that were not replayed, for every preset and variant', () => {
  const info = { report: reportOfTranscripts(), buildSimHash: 'current' };
  it('failover-fence without the fix: the failover is replayed on a real replica, so the claim covers all its steps', () => {
    const s = fidelityStatus(info, 'failover-fence', 'withoutFix');
    expect(s.short).toBe('Checked against Redis 7.0.15: 0 differences in all 9 steps');
  });

  it('a replay that stops (a second failover, say): 0 differences in the steps replayed, the others named with why', () => {
    const stopped: FidelityReport = { ...info.report, presets: { ...info.report.presets, 'failover-fence': { withoutFix: { redis: { steps: 5, differences: 0 }, coverage: { total: 9, replayed: [{ from: 1, to: 5 }], notReplayed: [{ from: 6, to: 9, why: REPLAY_LIMIT_WHY.failover }] } } } } };
    const s = fidelityStatus({ report: stopped, buildSimHash: 'current' }, 'failover-fence', 'withoutFix');
    expect(s.short).toBe('Checked against Redis 7.0.15: 0 differences in steps 1–5; steps 6–9 not replayed (a second Redis failover (the replay has one replica))');
    expect(s.text).toContain('0 differences in steps 1–5; steps 6–9 not replayed (a second Redis failover (the replay has one replica))');
  });

  it('every preset variant\'s transcript is replayed whole: no step is left out (issue 13)', () => {
    for (const p of PRESETS) {
      for (const v of ['withoutFix', 'withFix'] as const) expect(replayCoverage(buildTranscript(runScenario(p[v]))).stop, `${p.id} ${v}`).toBeNull();
    }
  });
  for (const p of PRESETS) {
    for (const v of ['withoutFix', 'withFix'] as ReportVariant[]) {
      it(`${p.id} ${v}`, () => {
        const t = buildTranscript(runScenario(p[v]));
        const { replayable, stop, total } = replayCoverage(t);
        const s = fidelityStatus(info, p.id, v);
        if (s.kind !== 'checked') return;
        for (const line of [s.short, s.text]) {
          const m = /0 differences in (all (\d+) steps?|steps? ([\d–, and]+?))(?:;|\.|$)/.exec(line);
          expect(m, line).not.toBeNull();
          // The steps the claim covers are exactly the steps replayed.
          const claimed = m![2] !== undefined ? Array.from({ length: Number(m![2]) }, (_, i) => i + 1) : numbersIn(m![3]!);
          expect(claimed, line).toEqual([...replayable].sort((a, b) => a - b));
          if (m![2] !== undefined) expect(Number(m![2])).toBe(total);
          // Every step not replayed is named as such, with the transcript's reason.
          if (stop !== null) {
            const nr = /; (steps? [\d–, and]+?) not replayed \(([^)]+)\)/.exec(line);
            expect(nr, line).not.toBeNull();
            expect(numbersIn(nr![1]!.replace(/^steps? /, ''))).toEqual([...stop.steps]);
          }
        }
      });
    }
  }
});
