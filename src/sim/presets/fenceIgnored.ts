import { scenario, steps, variant, type Preset } from './build';

const job = steps('acquire', ['work', 5_000], ['effect', 2_000], 'release');
const base = scenario({
  id: 'fence-ignored',
  title: 'Fencing tokens an external API ignores',
  description: 'Same as export-lease-expiry, but the job sends the nightly report e-mail through an external API that ignores fencing tokens.',
  lesson: 'leases',
  horizonMs: 90_000,
  job: { kind: 'external', jobKey: 'report-email-2026-11-30' },
  mechanism: { lock: 'lease', fencing: true },
  destination: { kind: 'api', target: 'POST /v1/emails', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }],
  invariants: [{ kind: 'effectOnce', harmless: false }],
});

/** fence-ignored: fencing only works where the destination checks the token; an idempotency key the API honours does. */
export const fenceIgnored: Preset = {
  id: 'fence-ignored',
  title: base.title,
  lesson: 'leases',
  // The duplicate does not need the pause: nothing records that the e-mail went out, so B sends it again once A releases (catalogue.test.ts pins both runs).
  situation: 'A and B run the same nightly job and both get fencing tokens (33, then 34), but the e-mail API never looks at them, and nothing records that the e-mail went out. So each holder sends it: customers get it twice, even without A\'s pause (B sends it again once A releases). With the pause, A\'s late send also carries a stale token, and the API accepts it.',
  fix: 'an idempotency key the API honours (or a durable job record)',
  withoutFix: base,
  withFix: variant(base, { idempotencyKey: true }, { destination: { ...base.destination, honoursIdempotencyKeys: true } }),
  expected: { withoutFix: 'the e-mail is sent twice', withFix: 'A\'s call is a replay: sent once' },
};
