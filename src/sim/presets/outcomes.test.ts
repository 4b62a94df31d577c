/**
 * What each preset shows, spelled out: the verdict and the events it cites, how and when each
 * worker's job ended, and the metrics. This pairs with the golden trace hashes in
 * determinism.test.ts: a hash says *that* a run changed and is silenced by `vitest -u`; this
 * table says *what* changed and has to be edited by hand, against product.md's catalogue (each
 * variant's `expected` line) and ../shared/semantics.md.
 *
 * Cited events read `<ms> <actor> <command or kind> → <reply>`. `workerTransitions` is left
 * out on purpose (an engine cost, not a behaviour). duplicateEffects counts effects for a business
 * key that already had one (src/sim/invariants/effects.ts): remote-call-in-txn's four payments
 * (four job keys) are no duplicates. A duplicate that no declared invariant checks is named in the
 * verdict as a note (export-lease-expiry and renew-partition without the fix upload twice).
 */
import { PRESETS } from './index';
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';

interface Expected {
  held: boolean;
  findings: { finding: string; cites: string[] }[];
  outcomes: string[];
  metrics: Record<string, unknown>;
}

function summarize(s: Scenario): Expected {
  const r = runScenario(s);
  const byId = new Map(r.events.map((e) => [e.id, e]));
  const cite = (id: string) => {
    const e = byId.get(id);
    if (!e) return `missing ${id}`;
    return `${e.atMs} ${e.actor} ${e.command ?? e.kind}${e.reply ? ` → ${e.reply}` : ''}`;
  };
  const { workerTransitions: _, ...metrics } = r.metrics;
  return {
    held: r.verdict.held,
    findings: [...r.verdict.violations, ...r.verdict.notes].map((f) => ({ finding: `${f.severity} ${f.invariant}: ${f.message}`, cites: f.eventIds.map(cite) })),
    outcomes: r.events.filter((e) => e.kind === 'outcome').map((e) => `${e.atMs} ${e.narration}`),
    metrics,
  };
}

const EXPECTED: Record<string, { withoutFix: Expected; withFix: Expected }> = {
  'invoice-race': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation uniqueBusinessKey: 2 rows exist for order_id = 42 in invoices', cites: [
          '50 A INSERT INTO invoices (order_id, amount) VALUES (42, 100) RETURNING id → INSERT 0 1 → id=1',
          '70 B INSERT INTO invoices (order_id, amount) VALUES (42, 100) RETURNING id → INSERT 0 1 → id=2',
          '120 B COMMIT → COMMIT',
        ] },
      ],
      outcomes: ['100 A is done: it completed the job.', '120 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 18 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['100 A is done: it completed the job.', '100 B is done: it found the existing row and used it.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 50, events: 19 },
    },
  },
  'balance-update': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation noLostUpdate: the balance is 50, but 100 minus the committed debits (80) is 20: an update was lost', cites: [
          '50 A UPDATE accounts SET balance = 70 WHERE id = 1 → UPDATE 1',
          '60 B UPDATE accounts SET balance = 50 WHERE id = 1 → UPDATE 1',
          '60 B COMMIT → COMMIT',
        ] },
      ],
      outcomes: ['50 A is done: it completed the job.', '60 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 16 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['50 A is done: it completed the job.', '100 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 17 },
    },
  },
  'inventory-reserve': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation noOversell: stock is -1: 2 reservations were made for 1 item(s) in stock', cites: [
          '50 A UPDATE items SET stock = stock - 1 WHERE id = 7 → UPDATE 1',
          '70 B UPDATE items SET stock = stock - 1 WHERE id = 7 → UPDATE 1',
          '90 B COMMIT → COMMIT',
        ] },
      ],
      outcomes: ['70 A is done: it completed the job.', '90 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 19 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['70 A is done: it completed the job.', '70 B is done: nothing left to reserve.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 16 },
    },
  },
  'thumbnail': {
    withoutFix: {
      held: true,
      findings: [
        { finding: 'redundant effectOnce: thumbs/42.png was produced 2 times — redundant, not a violation (duplicates are harmless here)', cites: [
          '300 A PUT thumbs/42.png → 200 OK (upload complete)',
          '350 B PUT thumbs/42.png → 200 OK (upload complete)',
        ] },
      ],
      outcomes: ['300 A is done: it completed the job.', '350 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 8 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['300 A is done: it completed the job.', '350 B is done: the job record said the work was already done.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 150, maxMs: 300 }, leaseAgeAtCommit: { count: 1, meanMs: 300, maxMs: 300 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 19 },
    },
  },
  'admin-bypass': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation uniqueBusinessKey: 2 rows exist for account_id = 7 and period = \'2026-11\' in invoices', cites: [
          '100 A INSERT INTO invoices (account_id, period, amount) VALUES (7, \'2026-11\', 250) RETURNING id → INSERT 0 1 → id=1',
          '150 admin INSERT INTO invoices (account_id, period, amount) VALUES (7, \'2026-11\', 250) RETURNING id → INSERT 0 1 → id=2',
          '200 A COMMIT → COMMIT',
        ] },
      ],
      outcomes: ['200 A is done: it completed the job.', '200 B is done: it found the existing row and used it.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 95, maxMs: 190 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 20 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['200 A is done: it completed the job.', '200 B is done: it found the existing row and used it.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 95, maxMs: 190 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 21 },
    },
  },
  'session-lock-pool': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation boundedWait: C was still waiting for a lock when the run ended, 9.8 s after it started (the limit is 5 s)', cites: [
          '200 C SELECT pg_advisory_lock(42) → waits (advisory lock 42 held by session c1)',
        ] },
      ],
      outcomes: ['0 A\'s job fails (an exception); its error path runs.', '0 A is done: the job failed.', '1100 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 0, maxMs: 0 }, acquisitionStillWaiting: { count: 1, maxMs: 9800 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 3, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 14 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['0 A\'s job fails (an exception); its error path runs.', '0 A is done: the job failed.', '1100 B is done: it completed the job.', '2100 C is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 3, meanMs: 300, maxMs: 900 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 3, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 23 },
    },
  },
  'pooler-session-lock': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation boundedWait: C was still waiting for a lock when the run ended, 8.5 s after it started (the limit is 5 s)', cites: [
          '1500 C SELECT pg_advisory_lock(42) → waits (advisory lock 42 held by session s1)',
        ] },
        { finding: 'violation mutualExclusion: A and B were inside the critical section at the same time (from 500 ms)', cites: ['0 A step', '500 B step'] },
      ],
      // A's unlock returned f on s2, but its client does not check it: A "completed".
      outcomes: ['1000 A is done: it completed the job.', '2500 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 0, maxMs: 0 }, acquisitionStillWaiting: { count: 1, maxMs: 8500 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 3, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 16 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['1000 A is done: it completed the job.', '3000 B is done: it completed the job.', '4000 C is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 3, meanMs: 667, maxMs: 1500 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 3, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 23 },
    },
  },
  'lock-order-deadlock': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation boundedWait: A waited 1 s for a lock, until its statement failed with ERROR 40P01 deadlock detected (the limit is 500 ms)', cites: [
          '100 A SELECT pg_advisory_xact_lock(2) → waits (advisory lock 2 held by session c2)',
          '1100 A SELECT pg_advisory_xact_lock(2) → ERROR 40P01 deadlock detected (Process c1 waits for ExclusiveLock on advisory lock [lockscope,0,2,1]; blocked by process c2.\nProcess c2 waits for ExclusiveLock on advisory lock [lockscope,0,1,1]; blocked by process c1.)',
        ] },
        { finding: 'violation boundedWait: B waited 990 ms for a lock (the limit is 500 ms)', cites: [
          '110 B SELECT pg_advisory_xact_lock(1) → waits (advisory lock 1 held by session c1)',
          '1100 B SELECT pg_advisory_xact_lock(1) → (void)',
        ] },
      ],
      outcomes: ['1100 A\'s job fails (could not take the lock: deadlock detected); its error path runs.', '1100 A is done: the job failed.', '1150 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 3, meanMs: 330, maxMs: 990 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 100, events: 22 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['150 A is done: it completed the job.', '300 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 4, meanMs: 35, maxMs: 140 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 23 },
    },
  },
  'skip-locked-claim': {
    "withoutFix": {
      "held": false,
      "findings": [
        {
          "finding": "violation oneClaimPerJob: job row 7 of job_queue was claimed 2 times: by A, then by B",
          "cites": [
            "20 A COMMIT \u2192 COMMIT",
            "30 B COMMIT \u2192 COMMIT"
          ]
        },
        {
          "finding": "violation effectOnce: the effect POST /v1/emails was performed 2 times",
          "cites": [
            "20 A POST /v1/emails \u2192 (pending: no reply yet)",
            "30 B POST /v1/emails \u2192 (pending: no reply yet)"
          ]
        }
      ],
      "outcomes": [
        "220 A is done: it completed the job.",
        "230 B is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "leaseAgeAtCommit": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 1,
        "wastedWorkMs": 0,
        "events": 26
      }
    },
    "withFix": {
      "held": true,
      "findings": [],
      "outcomes": [
        "10 B is done: there was no job in the queue for it.",
        "220 A is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "leaseAgeAtCommit": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 0,
        "wastedWorkMs": 0,
        "events": 17
      }
    }
  },
  'export-lease-expiry': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation noOverlappingWrites: B\'s and A\'s writes to exports/2026-11-30.csv overlapped from 45 s to 55 s, and both were accepted', cites: [
          '35000 B PUT exports/2026-11-30.csv → (pending: no reply yet)',
          '45000 A PUT exports/2026-11-30.csv → (pending: no reply yet)',
          '65000 A PUT exports/2026-11-30.csv → 200 OK (upload complete)',
        ] },
        { finding: 'unchecked effectOnce: exports/2026-11-30.csv (job key export-2026-11-30) was performed 2 times — a duplicate this scenario\'s invariants do not check', cites: [
          '55000 B PUT exports/2026-11-30.csv → 200 OK (upload complete)',
          '65000 A PUT exports/2026-11-30.csv → 200 OK (upload complete)',
        ] },
      ],
      outcomes: ['55000 B is done: it completed the job.', '65000 A is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 14500, maxMs: 29000 }, leaseAgeAtCommit: { count: 2, meanMs: 45000, maxMs: 65000 }, commitsOnLostLease: 1, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 44 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['45000 A\'s job fails (stale fencing token rejected); its error path runs.', '45000 A is done: the job failed.', '55000 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 14500, maxMs: 29000 }, leaseAgeAtCommit: { count: 1, meanMs: 25000, maxMs: 25000 }, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 1, duplicateEffects: 0, wastedWorkMs: 5000, events: 46 },
    },
  },
  'unsafe-release': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation mutualExclusion: B and C were inside the critical section at the same time (from 13.5 s)', cites: [
          '10000 B step',
          '13500 C step',
        ] },
      ],
      outcomes: ['13000 A is done: it completed the job.', '18000 B is done: it completed the job.', '21500 C is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 3, meanMs: 6667, maxMs: 11000 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 35 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['13000 A is done: it completed the job.', '18000 B is done: it completed the job.', '26500 C is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 3, meanMs: 8333, maxMs: 16000 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 40 },
    },
  },
  'fence-ignored': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation effectOnce: the effect POST /v1/emails was performed 2 times', cites: [
          '35000 B POST /v1/emails Fencing-Token: 34 → (pending: no reply yet)',
          '45000 A POST /v1/emails Fencing-Token: 33 → (pending: no reply yet)',
        ] },
      ],
      outcomes: ['37000 B is done: it completed the job.', '47000 A is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 14500, maxMs: 29000 }, leaseAgeAtCommit: { count: 2, meanMs: 27000, maxMs: 47000 }, commitsOnLostLease: 1, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 46 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['37000 B is done: it completed the job.', '45000 A is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 14500, maxMs: 29000 }, leaseAgeAtCommit: { count: 1, meanMs: 7000, maxMs: 7000 }, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 45 },
    },
  },
  'renew-partition': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation noOverlappingWrites: A\'s and B\'s writes to reports/ledger.csv overlapped from 21 s to 28 s, and both were accepted', cites: [
          '8000 A PUT reports/ledger.csv → (pending: no reply yet)',
          '21000 B PUT reports/ledger.csv → (pending: no reply yet)',
          '41000 B PUT reports/ledger.csv → 200 OK (upload complete)',
        ] },
        { finding: 'unchecked effectOnce: reports/ledger.csv (job key ledger-export) was performed 2 times — a duplicate this scenario\'s invariants do not check', cites: [
          '28000 A PUT reports/ledger.csv → 200 OK (upload complete)',
          '41000 B PUT reports/ledger.csv → 200 OK (upload complete)',
        ] },
      ],
      outcomes: ['28000 A is done: it completed the job.', '41000 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 6000, maxMs: 12000 }, leaseAgeAtCommit: { count: 2, meanMs: 13000, maxMs: 25000 }, commitsOnLostLease: 1, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 8, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 45 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['8000 A saw a renewal fail, so it stops before its write.', '8000 A is done: it stopped because it could not keep its lease.', '41000 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 6000, maxMs: 12000 }, leaseAgeAtCommit: { count: 1, meanMs: 1000, maxMs: 1000 }, connectionWait: { count: 0, meanMs: 0, maxMs: 0 }, renewFailures: 1, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 8000, events: 39 },
    },
  },
  'watchdog-starved': {
    "withoutFix": {
      "held": false,
      "findings": [
        {
          "finding": "violation noOverlappingWrites: B's and A's writes to ledger/2026-11.csv overlapped from 20 s to 22 s, and both were accepted",
          "cites": [
            "12000 B PUT ledger/2026-11.csv Fencing-Token: 34 → (pending: no reply yet)",
            "20000 A PUT ledger/2026-11.csv Fencing-Token: 33 → (pending: no reply yet)",
            "25000 A PUT ledger/2026-11.csv Fencing-Token: 33 → 200 OK (upload complete)"
          ]
        },
        {
          "finding": "violation noStaleTokenAccepted: the destination accepted A's stale token 33 after token 34",
          "cites": [
            "22000 B PUT ledger/2026-11.csv Fencing-Token: 34 → 200 OK (upload complete)",
            "25000 A PUT ledger/2026-11.csv Fencing-Token: 33 → 200 OK (upload complete)"
          ]
        },
        {
          "finding": "unchecked effectOnce: ledger/2026-11.csv (job key ledger-close) was performed 2 times — a duplicate this scenario's invariants do not check",
          "cites": [
            "22000 B PUT ledger/2026-11.csv Fencing-Token: 34 → 200 OK (upload complete)",
            "25000 A PUT ledger/2026-11.csv Fencing-Token: 33 → 200 OK (upload complete)"
          ]
        }
      ],
      "outcomes": [
        "22000 B is done: it completed the job.",
        "25000 A's job fails (its release found lease:ledger no longer held with its token); its error path runs.",
        "25000 A is done: the job failed."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 4500,
          "maxMs": 9000
        },
        "leaseAgeAtCommit": {
          "count": 2,
          "meanMs": 14000,
          "maxMs": 25000
        },
        "commitsOnLostLease": 1,
        "connectionWait": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 1,
        "wastedWorkMs": 20000,
        "events": 30
      }
    },
    "withFix": {
      "held": true,
      "findings": [],
      "outcomes": [
        "20000 A's job fails (stale fencing token rejected); its error path runs.",
        "20000 A is done: the job failed.",
        "22000 B is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 4500,
          "maxMs": 9000
        },
        "leaseAgeAtCommit": {
          "count": 1,
          "meanMs": 3000,
          "maxMs": 3000
        },
        "connectionWait": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 1,
        "duplicateEffects": 0,
        "wastedWorkMs": 20000,
        "events": 29
      }
    }
  },
  'pexpire-renewal': {
    "withoutFix": {
      "held": false,
      "findings": [
        {
          "finding": "violation effectOnce: the effect search/catalog.idx was performed 2 times",
          "cites": [
            "20000 B PUT search/catalog.idx → 200 OK (upload complete)",
            "22000 A PUT search/catalog.idx → 200 OK (upload complete)"
          ]
        }
      ],
      "outcomes": [
        "20000 B is done: it completed the job.",
        "22000 A is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 4500,
          "maxMs": 9000
        },
        "leaseAgeAtCommit": {
          "count": 2,
          "meanMs": 1500,
          "maxMs": 2000
        },
        "commitsOnLostLease": 1,
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 1,
        "wastedWorkMs": 0,
        "events": 38
      }
    },
    "withFix": {
      "held": true,
      "findings": [],
      "outcomes": [
        "20000 A saw a renewal fail, so it stops before its write.",
        "20000 A is done: it stopped because it could not keep its lease.",
        "20000 B is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 4500,
          "maxMs": 9000
        },
        "leaseAgeAtCommit": {
          "count": 1,
          "meanMs": 1000,
          "maxMs": 1000
        },
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 1,
        "staleWritesRejected": 0,
        "duplicateEffects": 0,
        "wastedWorkMs": 8000,
        "events": 33
      }
    }
  },
  'fenced-db-write': {
    "withoutFix": {
      "held": false,
      "findings": [
        {
          "finding": "violation noStaleTokenAccepted: the database accepted A's stale token 33 after token 34: A's UPDATE overwrote the row B had written",
          "cites": [
            "35000 B UPDATE documents SET body = 'report by B', fence = 34 WHERE id = 7 \u2192 UPDATE 1",
            "45000 A UPDATE documents SET body = 'report by A', fence = 33 WHERE id = 7 \u2192 UPDATE 1"
          ]
        }
      ],
      "outcomes": [
        "36000 B is done: it completed the job.",
        "46000 A is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 14500,
          "maxMs": 29000
        },
        "leaseAgeAtCommit": {
          "count": 2,
          "meanMs": 25000,
          "maxMs": 45000
        },
        "commitsOnLostLease": 1,
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 0,
        "wastedWorkMs": 0,
        "events": 48
      }
    },
    "withFix": {
      "held": true,
      "findings": [],
      "outcomes": [
        "36000 B is done: it completed the job.",
        "45000 A's job fails (stale fencing token: the conditional UPDATE updated 0 rows); its error path runs.",
        "45000 A is done: the job failed."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 14500,
          "maxMs": 29000
        },
        "leaseAgeAtCommit": {
          "count": 1,
          "meanMs": 5000,
          "maxMs": 5000
        },
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 1,
        "duplicateEffects": 0,
        "wastedWorkMs": 5000,
        "events": 48
      }
    }
  },
  'failover-fence': {
    "withoutFix": {
      "held": false,
      "findings": [
        {
          "finding": "violation noStaleTokenAccepted: the destination accepted A's token 33 after B's write with the same token: two holders carried token 33, so it could not tell the stale one",
          "cites": [
            "17000 B PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 200 OK (upload complete)",
            "25000 A PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 200 OK (upload complete)"
          ]
        },
        {
          "finding": "violation noOverlappingWrites: B's and A's writes to exports/2026-11-30.csv overlapped from 15 s to 17 s, and both were accepted",
          "cites": [
            "7000 B PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 (pending: no reply yet)",
            "15000 A PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 (pending: no reply yet)",
            "25000 A PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 200 OK (upload complete)"
          ]
        },
        {
          "finding": "unchecked effectOnce: exports/2026-11-30.csv (job key export-2026-11-30) was performed 2 times \u2014 a duplicate this scenario's invariants do not check",
          "cites": [
            "17000 B PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 200 OK (upload complete)",
            "25000 A PUT exports/2026-11-30.csv Fencing-Token: 33 \u2192 200 OK (upload complete)"
          ]
        }
      ],
      "outcomes": [
        "17000 B is done: it completed the job.",
        "25000 A is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 500,
          "maxMs": 1000
        },
        "leaseAgeAtCommit": {
          "count": 2,
          "meanMs": 20000,
          "maxMs": 25000
        },
        "commitsOnLostLease": 1,
        "connectionWait": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 1,
        "wastedWorkMs": 0,
        "events": 18
      }
    },
    "withFix": {
      "held": true,
      "findings": [],
      "outcomes": [
        "15000 A's job fails (stale fencing token rejected); its error path runs.",
        "15000 A is done: the job failed.",
        "17000 B is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 2,
          "meanMs": 500,
          "maxMs": 1000
        },
        "leaseAgeAtCommit": {
          "count": 1,
          "meanMs": 15000,
          "maxMs": 15000
        },
        "connectionWait": {
          "count": 2,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 1,
        "duplicateEffects": 0,
        "wastedWorkMs": 5000,
        "events": 22
      }
    }
  },
  'crash-after-effect': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation effectOnce: the effect POST /v1/charges was performed 2 times', cites: [
          '0 A POST /v1/charges → (pending: no reply yet)',
          '2500 A POST /v1/charges → (pending: no reply yet)',
        ] },
      ],
      outcomes: ['3000 A is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 14 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['2500 A is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 13 },
    },
  },
  'manual-unlock': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation effectOnce: the effect POST /v1/shipments was performed 2 times', cites: [
          '30000 A POST /v1/shipments → (pending: no reply yet)',
          '40000 B POST /v1/shipments → (pending: no reply yet)',
        ] },
      ],
      outcomes: ['31000 A is done: it completed the job.', '41000 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 4500, maxMs: 9000 }, leaseAgeAtCommit: { count: 2, meanMs: 31000, maxMs: 31000 }, commitsOnLostLease: 1, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 0, events: 30 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['31000 A is done: it completed the job.', '40000 B is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 2, meanMs: 4500, maxMs: 9000 }, leaseAgeAtCommit: { count: 1, meanMs: 31000, maxMs: 31000 }, commitsOnLostLease: 1, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 29 },
    },
  },
  'remote-call-in-txn': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation boundedWait: C waited 2.8 s for a connection (the limit is 1 s)', cites: [
          '200 C pool.connect() → waits (pool exhausted)',
          '3000 C BEGIN → BEGIN',
        ] },
        { finding: 'violation boundedWait: D waited 2.8 s for a connection (the limit is 1 s)', cites: [
          '300 D pool.connect() → waits (pool exhausted)',
          '3100 D BEGIN → BEGIN',
        ] },
      ],
      outcomes: ['3000 A is done: it completed the job.', '3100 B is done: it completed the job.', '6000 C is done: it completed the job.', '6100 D is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 4, meanMs: 1400, maxMs: 2800 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 38 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: ['3000 A is done: it completed the job.', '3100 B is done: it completed the job.', '3200 C is done: it completed the job.', '3300 D is done: it completed the job.'],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 8, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 0, events: 52 },
    },
  },
  'serializable-retry': {
    withoutFix: {
      held: false,
      findings: [
        { finding: 'violation effectOnce: the effect POST /v1/charges was performed 2 times for job key charge-B', cites: [
          '400 B POST /v1/charges → (pending: no reply yet)',
          '1200 B POST /v1/charges → (pending: no reply yet)',
        ] },
      ],
      outcomes: [
        '800 A is done: it completed the job.',
        '900 B\'s transaction failed with 40001 (serialization failure), so the framework rolls it back and runs it again from BEGIN (retry 1 of 3). The call to POST /v1/charges it made inside the transaction was not rolled back: a database rollback cannot undo it.',
        '1700 B is done: it completed the job.',
      ],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 1, wastedWorkMs: 300, events: 28 },
    },
    withFix: {
      held: true,
      findings: [],
      outcomes: [
        '400 B\'s transaction failed with 40001 (serialization failure), so the framework rolls it back and runs it again from BEGIN (retry 1 of 3).',
        '800 A is done: it completed the job.',
        '1200 B is done: it completed the job.',
      ],
      metrics: { acquisitionLatency: { count: 0, meanMs: 0, maxMs: 0 }, leaseAgeAtCommit: { count: 0, meanMs: 0, maxMs: 0 }, connectionWait: { count: 2, meanMs: 0, maxMs: 0 }, renewFailures: 0, staleWritesRejected: 0, duplicateEffects: 0, wastedWorkMs: 300, events: 26 },
    },
  },
  'queue-redelivery': {
    "withoutFix": {
      "held": false,
      "findings": [
        {
          "finding": "violation effectOnce: the effect POST /v1/charges was performed 2 times",
          "cites": [
            "35000 A POST /v1/charges \u2192 (pending: no reply yet)",
            "66000 B POST /v1/charges \u2192 (pending: no reply yet)"
          ]
        },
        {
          "finding": "violation jobCompletesWithin: job charge-order-42 was acknowledged 68 s after its first delivery (the limit is 60 s)",
          "cites": [
            "0 A ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount \u2192 Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1]",
            "68000 B DeleteMessage QueueUrl=charges ReceiptHandle=rh-2 \u2192 200 OK"
          ]
        }
      ],
      "outcomes": [
        "37000 A is done: it completed the job.",
        "68000 B is done: it completed the job."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "leaseAgeAtCommit": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "connectionWait": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 1,
        "wastedWorkMs": 0,
        "events": 20
      }
    },
    "withFix": {
      "held": true,
      "findings": [],
      "outcomes": [
        "37000 A is done: it completed the job.",
        "56000 B is done: there was no job in the queue for it."
      ],
      "metrics": {
        "acquisitionLatency": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "leaseAgeAtCommit": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "connectionWait": {
          "count": 0,
          "meanMs": 0,
          "maxMs": 0
        },
        "renewFailures": 0,
        "staleWritesRejected": 0,
        "duplicateEffects": 0,
        "wastedWorkMs": 0,
        "events": 21
      }
    }
  },
};

describe('what each preset shows (verdict, cited events, outcomes, metrics)', () => {
  it('covers every preset', () => {
    expect(Object.keys(EXPECTED)).toEqual(PRESETS.map((p) => p.id));
  });

  it.each(PRESETS.flatMap((p) => [[p.id, 'withoutFix'], [p.id, 'withFix']] as const))('%s %s', (id, variant) => {
    const p = PRESETS.find((x) => x.id === id)!;
    expect(summarize(p[variant])).toEqual(EXPECTED[id]![variant]);
  });
});
