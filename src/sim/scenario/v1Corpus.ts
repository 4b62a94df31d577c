/**
 * A corpus of 260 version-1 scenarios for the migration test (v1Corpus.test.ts), frozen in
 * fixtures/v1-corpus.json: every preset of the last version-1 build, both variants, with seeded
 * random faults of the nine version-1 kinds and random version-1 mechanism and lease settings.
 * They were drawn from the presets by a generator (see this file's git history) until a preset's
 * story was corrected (manual-unlock, whose fault-free run double-shipped), which changed what the
 * generator drew; a corpus of version-1 files must not move when a version-2 preset does, so the
 * drawn scenarios are stored. Test support only: nothing in the app imports it.
 */
import { readFileSync } from 'node:fs';

const corpus = JSON.parse(readFileSync(new URL('./fixtures/v1-corpus.json', import.meta.url), 'utf8')) as Record<string, unknown>[];

/**
 * Scenario `i` of the corpus, as version-1 JSON (`version: 1`, no version-2 field); a fresh copy.
 * @throws RangeError when `i` is outside 0 … V1_CORPUS_SIZE − 1.
 */
export function v1Scenario(i: number): Record<string, unknown> {
  const s = corpus[i];
  if (s === undefined) throw new RangeError(`v1Scenario(${i}): the corpus holds scenarios 0 … ${corpus.length - 1}`);
  return structuredClone(s);
}

/** How many scenarios the corpus holds. */
export const V1_CORPUS_SIZE = corpus.length;
