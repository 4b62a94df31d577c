import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/**
 * The one seeded PRNG of a run (xoroshiro128+ from pure-rand). Every random choice of the
 * simulation draws from it, in a fixed order, so the same seed gives the same trace.
 */
export class Rng {
  private readonly gen: RandomGenerator;

  /** @param seed a 32-bit integer (the scenario's `seed`). */
  constructor(seed: number) {
    this.gen = xoroshiro128plus(seed | 0);
  }

  /** A uniform integer in [fromInclusive, toInclusive]. */
  int(fromInclusive: number, toInclusive: number): number {
    return uniformInt(this.gen, fromInclusive, toInclusive);
  }

  /** A random owner token of `hexDigits` lowercase hex digits (e.g. `7f3a`), as a lease value. */
  hexToken(hexDigits = 4): string {
    let out = '';
    for (let i = 0; i < hexDigits; i++) out += this.int(0, 15).toString(16);
    return out;
  }
}
