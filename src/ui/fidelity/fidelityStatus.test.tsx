// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import { BUILD_FIDELITY, fidelityStatus, NOT_CHECKED, type FidelityReport } from './fidelityStatus';
import { FidelityLine } from './FidelityLine';
import { readReport, simSourceHash } from '../../../fidelity/report';

const report: FidelityReport = {
  version: 1,
  simSourceHash: 'abc123',
  date: '2026-11-30',
  servers: { postgresql: '15.20', redis: '7.0.15' },
  presets: {
    'invoice-race': { withoutFix: { sql: { steps: 8, differences: 0 } }, withFix: { sql: { steps: 10, differences: 0 } } },
    'export-lease-expiry': { withoutFix: { redis: { steps: 30, differences: 0 } }, withFix: { redis: { steps: 12, differences: 1 } } },
  },
};

describe('fidelityStatus: a claim only for the sources the report was written for', () => {
  it('present and current: names the servers the run used, the steps and the differences', () => {
    const s = fidelityStatus({ report, buildSimHash: 'abc123' }, 'invoice-race');
    expect(s).toEqual({
      kind: 'checked', differences: 0,
      text: 'Checked against PostgreSQL 15.20 / Redis 7.0.15 on 2026-11-30: the transcripts of both variants replayed, 18 steps, 0 differences.',
      short: 'Checked against PostgreSQL 15.20 / Redis 7.0.15: 0 differences',
    });
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }, 'export-lease-expiry')).toMatchObject({ kind: 'checked', differences: 1, short: 'Checked against PostgreSQL 15.20 / Redis 7.0.15: 1 difference' });
    expect(fidelityStatus({ report, buildSimHash: 'abc123' }).text).toBe('Checked against PostgreSQL 15.20 / Redis 7.0.15 on 2026-11-30: the transcripts of 2 presets (both variants) replayed, 60 steps, 1 difference — the model and the servers disagree here.');
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

  it('names PgBouncer only when the run went through it', () => {
    const withPgb: FidelityReport = { ...report, servers: { ...report.servers, pgbouncer: '1.22.1' }, presets: { 'invoice-race': { withoutFix: { sql: { steps: 8, differences: 0 }, viaPgBouncer: true } } } };
    expect(fidelityStatus({ report: withPgb, buildSimHash: 'abc123' }, 'invoice-race').text).toMatch(/^Checked against PostgreSQL 15.20 \/ Redis 7.0.15 \/ PgBouncer 1.22.1 on/);
    expect(fidelityStatus({ report: { ...withPgb, presets: report.presets }, buildSimHash: 'abc123' }, 'invoice-race').text).not.toContain('PgBouncer');
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
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Checked against PostgreSQL 15.20 / Redis 7.0.15: 0 differences');
    rerender(<FidelityLine presetId="invoice-race" info={{ report: null, buildSimHash: 'abc123' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not checked in this build');
    rerender(<FidelityLine presetId="invoice-race" info={{ report, buildSimHash: 'other' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not checked in this build');
    rerender(<FidelityLine presetId="invoice-race" edited info={{ report, buildSimHash: 'abc123' }} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Not checked: this run was edited');
  });
});
