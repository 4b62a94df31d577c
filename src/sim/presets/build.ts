/**
 * Helpers to write presets compactly: defaults for every mechanism switch and resource setting,
 * so a preset file states only what makes its situation.
 */
import { DEFAULT_CLIENT, type Scenario, type Mechanism, type Step, type ClientConfig } from '../scenario/schema';

/** A catalogue entry: the situation, and the scenario without and with the fix. */
export interface Preset {
  /** Id from the catalogue table of product.md, e.g. `invoice-race`. */
  readonly id: string;
  readonly title: string;
  readonly lesson: Scenario['lesson'];
  /** The one-paragraph setup a user reads first. */
  readonly situation: string;
  /** What the fix is, in a few words (e.g. "unique key on order_id"). */
  readonly fix: string;
  readonly withoutFix: Scenario;
  readonly withFix: Scenario;
  /** What each variant must show (the acceptance test asserts these). */
  readonly expected: { readonly withoutFix: string; readonly withFix: string };
}

/** Every mechanism switch off. */
export const NO_MECHANISM: Mechanism = {
  lock: 'none',
  advisoryKey: 42,
  rowLock: 'none',
  uniqueKey: false,
  checkConstraint: false,
  onConflict: 'error',
  release: 'compare-and-delete',
  renewal: 'none',
  stopOnRenewFailure: false,
  fencing: false,
  idempotencyKey: false,
  jobRecord: false,
  onError: 'return',
};

type Base = Omit<Scenario, 'version' | 'mechanism' | 'client' | 'lease' | 'database' | 'destination' | 'faults' | 'seed'> & Partial<Pick<Scenario, 'lease' | 'database' | 'destination' | 'faults' | 'seed'>> & { mechanism?: Partial<Mechanism>; client?: Partial<ClientConfig> };

/** A full scenario from the parts a preset cares about. */
export function scenario(base: Base): Scenario {
  return {
    version: 2,
    seed: base.seed ?? 1,
    ...base,
    mechanism: { ...NO_MECHANISM, ...base.mechanism },
    client: { ...DEFAULT_CLIENT, ...base.client },
    lease: base.lease ?? { key: 'lease:export', fenceKey: 'fence:export', fenceStart: 32, ttlMs: 30_000, retryEveryMs: 1_000, renewEveryMs: 10_000, replicationLagMs: 0 },
    database: base.database ?? { poolSize: 4 },
    destination: base.destination ?? { kind: 'file', target: 'exports/2026-11-30.csv', checksFencing: false, honoursIdempotencyKeys: false },
    faults: base.faults ?? [],
  };
}

/** The same scenario with some mechanism switches changed (and optionally other fields). */
export function variant(s: Scenario, mechanism: Partial<Mechanism>, rest: Partial<Scenario> = {}): Scenario {
  return { ...s, ...rest, mechanism: { ...s.mechanism, ...mechanism } };
}

/** Shorthand for steps: `steps('begin', 'check', ['work', 50], ['effect', 0], 'commit')`. */
export function steps(...parts: (Step['do'] | [Step['do'], number])[]): Step[] {
  return parts.map((p) => (Array.isArray(p) ? ({ do: p[0], ms: p[1] } as Step) : ({ do: p } as Step)));
}
