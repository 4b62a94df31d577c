import { scenario, steps, variant, type Preset } from './build';

const base = scenario({
  id: 'thumbnail',
  title: 'Two workers render the same thumbnail',
  description: 'Two workers render the thumbnail for image 42 and upload it. The result is the same bytes either way.',
  lesson: 'invariants',
  horizonMs: 2_000,
  job: { kind: 'external', jobKey: 'thumb-42' },
  destination: { kind: 'file', target: 'thumbs/42.png', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: steps(['work', 200], ['effect', 100]) },
    { id: 'B', startMs: 50, steps: steps(['work', 200], ['effect', 100]) },
  ],
  invariants: [{ kind: 'effectOnce', harmless: true }],
});

/** thumbnail: a duplicate that costs only CPU is redundant, not a violation; an efficiency lock is optional. */
export const thumbnail: Preset = {
  id: 'thumbnail',
  title: base.title,
  lesson: 'invariants',
  situation: 'Both workers render thumbs/42.png. The duplicate costs a little CPU and writes identical bytes: no invariant breaks. Not every duplicate needs a lock.',
  fix: 'none needed; optionally an efficiency lease plus a job record saves the second render',
  withoutFix: base,
  withFix: variant(base, { lock: 'lease', jobRecord: true }, {
    lease: { key: 'lease:thumb-42', fenceKey: 'fence:thumb-42', fenceStart: 0, ttlMs: 5_000, retryEveryMs: 100, renewEveryMs: 2_000, replicationLagMs: 0 },
    workers: [
      { id: 'A', startMs: 0, steps: steps('acquire', 'check', ['work', 200], ['effect', 100], 'record', 'release') },
      { id: 'B', startMs: 50, steps: steps('acquire', 'check', ['work', 200], ['effect', 100], 'record', 'release') },
    ],
  }),
  expected: { withoutFix: '2 renders — redundant, not a violation', withFix: '1 render' },
};
