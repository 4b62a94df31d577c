/**
 * A corpus of version-1 scenarios for the migration test (v1Corpus.test.ts): every preset, both
 * variants, with seeded random faults of the nine version-1 kinds and random version-1 mechanism
 * and lease settings. The same code ran on the last version-1 build to record each scenario's
 * trace hash (fixtures/v1-corpus-hashes.json); it uses only what both builds have, so it draws
 * the same scenarios in both. Test support only: nothing in the app imports it.
 */
import { PRESETS } from '../presets';
import { Rng } from '../engine/rng';
import { faultKinds } from '../faults/registry';

/** The fault kinds of scenario version 1, in their order. */
const V1_FAULT_KINDS = ['pause', 'expireLease', 'crash', 'partition', 'adminBypass', 'manualDelete', 'jobError', 'failover', 'clockJump'];
/** The presets of the last version-1 build. */
const V1_PRESETS = ['invoice-race', 'balance-update', 'inventory-reserve', 'thumbnail', 'admin-bypass', 'session-lock-pool', 'export-lease-expiry', 'unsafe-release', 'fence-ignored', 'renew-partition', 'crash-after-effect', 'manual-unlock', 'remote-call-in-txn'];

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;

/** Scenario `i` of the corpus, as version-1 JSON (`version: 1`, no version-2 field). */
export function v1Scenario(i: number): Record<string, unknown> {
  const rng = new Rng(1_000 + i);
  const preset = PRESETS.find((p) => p.id === V1_PRESETS[i % V1_PRESETS.length])!;
  type V1 = Record<string, unknown> & { mechanism: Record<string, unknown>; lease: Record<string, unknown>; faults: { atMs?: number }[]; horizonMs: number };
  const base = JSON.parse(JSON.stringify(rng.int(0, 1) === 0 ? preset.withoutFix : preset.withFix)) as V1;
  delete base.client;
  base.version = 1;
  base.seed = rng.int(0, 1_000_000);
  const m = base.mechanism;
  if (rng.int(0, 2) === 0) m.lock = pick(rng, ['none', 'advisory-xact', 'advisory-session', 'lease']);
  m.renewal = pick(rng, ['none', 'compare-and-extend', 'set']);
  m.release = pick(rng, ['del', 'compare-and-delete']);
  m.fencing = rng.int(0, 1) === 1;
  m.stopOnRenewFailure = rng.int(0, 1) === 1;
  m.acquireTimeoutMs = rng.int(0, 2) === 0 ? rng.int(1, 20_000) : null;
  if (rng.int(0, 3) === 0) m.releaseInFinally = true;
  base.lease.renewEveryMs = pick(rng, [1_000, 3_000, 10_000]);
  base.lease.retryEveryMs = pick(rng, [250, 1_000]);
  const kinds = faultKinds().filter((k) => V1_FAULT_KINDS.includes(k.kind));
  const faults: { atMs?: number }[] = [];
  for (let n = rng.int(0, 3); n > 0; n--) faults.push(pick(rng, kinds).generate(rng, base as never));
  base.faults = [...base.faults, ...faults].filter((f) => f.atMs === undefined || f.atMs <= base.horizonMs);
  return base;
}

/** How many scenarios the corpus holds. */
export const V1_CORPUS_SIZE = 260;
