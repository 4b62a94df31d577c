import { encodeShare } from '../../share/link';
import { findPreset } from '../../sim';
import { flipSwitch } from '../mechanism/switches';
import { hashOf, readHash, shareStateOf, isEdited } from './urlState';

const s = findPreset('export-lease-expiry')!.withoutFix;
const fields = { composed: s, variant: 'without' as const, view: 'simulate' as const, cursorIndex: -1, compareTarget: { kind: 'otherVariant' as const } };

describe('URL state', () => {
  it('an untouched preset is a short link naming the preset', () => {
    expect(shareStateOf(fields)).toEqual({ p: 'export-lease-expiry' });
    expect(hashOf({ ...fields, view: 'catalogue' })).toBe('#/');
  });

  it('round-trips view, cursor, variant and the compare switch', () => {
    const h = hashOf({ ...fields, view: 'compare', cursorIndex: 12, compareTarget: { kind: 'switch', switchId: 'release' } });
    const r = readHash(h);
    expect(r.kind).toBe('shared');
    if (r.kind !== 'shared') return;
    expect(r.opts).toMatchObject({ view: 'compare', cursorIndex: 12, variant: 'without', compareTarget: { kind: 'switch', switchId: 'release' } });
    const e = readHash(hashOf({ ...fields, view: 'edit' }));
    expect(e.kind === 'shared' && e.opts.view).toBe('edit');
  });

  it('keeps the loaded variant when the scenario matches it', () => {
    const fixed = findPreset('export-lease-expiry')!.withFix;
    const r = readHash(hashOf({ ...fields, composed: fixed, variant: 'with' }));
    expect(r.kind === 'shared' && r.opts.variant).toBe('with');
  });

  it('marks edits: switches, faults or a whole scenario', () => {
    expect(isEdited(shareStateOf(fields))).toBe(false);
    expect(isEdited(shareStateOf({ ...fields, composed: flipSwitch(s, 'release') }))).toBe(true);
    expect(isEdited(shareStateOf({ ...fields, composed: { ...s, faults: [] } }))).toBe(true);
    expect(isEdited(shareStateOf({ ...fields, composed: { ...s, seed: 5 } }))).toBe(true);
  });

  it.each([
    ['', 'catalogue'],
    ['#/', 'catalogue'],
    ['#/sim/invoice-race', 'preset'],
    ['#/compare/invoice-race/fixed', 'preset'],
    ['#/sim/no-such-preset', 'invalid'],
    ['#main', 'ignore'],
    ['#v=1&s=zzz', 'invalid'],
    ['#v=9&s=zzz', 'invalid'],
    [`#${encodeShare({ p: 'invoice-race', x: [{ kind: 'expireLease', atMs: 5_000_000 }] })}`, 'invalid'],
  ])('reads %s as %s', (hash, kind) => {
    expect(readHash(hash).kind).toBe(kind);
  });

  it('old routes keep their preset, variant and view', () => {
    expect(readHash('#/compare/invoice-race/fixed')).toEqual({ kind: 'preset', presetId: 'invoice-race', variant: 'with', view: 'compare' });
  });
});

describe('the lessons path has its own address', () => {
  it('hashOf gives #/lessons for the lessons view, and readHash reads it back as the lessons', () => {
    const base = { composed: findPreset('invoice-race')!.withoutFix, variant: 'without' as const, cursorIndex: -1, compareTarget: { kind: 'otherVariant' as const } };
    expect(hashOf({ ...base, view: 'lessons' })).toBe('#/lessons');
    expect(readHash('#/lessons')).toEqual({ kind: 'lessons' });
    expect(hashOf({ ...base, view: 'catalogue' })).toBe('#/');
  });
});
