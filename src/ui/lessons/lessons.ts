/**
 * The guided lessons (issue 12): a path through the catalogue in the order the lesson is told —
 * start from the invariant → unique constraint → row lock → advisory lock → lease → fencing →
 * idempotency → recovery. Each lesson names a preset (src/sim/presets), asks a question, and sets
 * one exercise ("make it hold with the weakest mechanism") graded by the fault search against
 * ≤ `maxFaults` faults of `kinds` (`lessons.test.ts` checks that the preset's fix passes it and
 * that the starting design does not, except the first lesson, whose answer is "no mechanism").
 * Until the reveal a lesson shows only its own `title` and `setup` — the situation without its
 * outcome — never the catalogue's title and situation, which tell what breaks
 * (`LessonView.test.tsx` checks every lesson's page before the reveal against the outcome texts).
 */
import { LESSON_IDS } from '../../share/link';
import { askInWords, type Ask } from './question';

/** A lesson's id (the link's `l.id`). */
export type LessonId = (typeof LESSON_IDS)[number];

/** One lesson of the path. */
export interface Lesson {
  readonly id: LessonId;
  /** The step of the path ("Unique constraint"). */
  readonly step: string;
  /** The catalogue preset it opens (its "without the fix" variant). */
  readonly presetId: string;
  /** The scenario's name before the reveal: what it is, not what happens (the catalogue's title may tell that). */
  readonly title: string;
  /** The setup before the reveal: who does what, with which mechanism and which fault — never the outcome. */
  readonly setup: string;
  /**
   * The scene the lesson's question is set in (no question of its own): the question itself is
   * the prediction's, `lessonQuestion` — one question, whose answer is the schedules ticked.
   */
  readonly scene: string;
  /** The exercise, in words. */
  readonly exercise: string;
  /** Fault kinds the exercise's grading allows (registry ids). */
  readonly kinds: readonly string[];
  /** At most this many faults per schedule. */
  readonly maxFaults: number;
  /** Why the weakest mechanism is enough (shown once the exercise passes). */
  readonly takeaway: string;
}

/** The path, in order. */
export const LESSON_PATH: readonly Lesson[] = [
  {
    id: 'invariant', step: 'Start from the invariant', presetId: 'thumbnail',
    title: 'Two workers, one thumbnail',
    setup: 'Workers A and B both take the job that renders thumbs/42.png, 50 ms apart: each renders for 200 ms, then uploads the file. Nothing coordinates them: no lock, no job record.',
    scene: 'Two workers render one thumbnail, and nothing coordinates them.',
    exercise: 'Make it hold with the weakest mechanism. (Is a mechanism needed at all?)',
    kinds: ['pause', 'crash'], maxFaults: 1,
    takeaway: 'Rendering twice wastes work but breaks no invariant: the weakest mechanism is none. Start from what must never happen.',
  },
  {
    id: 'unique', step: 'Unique constraint', presetId: 'invoice-race',
    title: 'Two requests, one order',
    setup: 'Two requests for order 42 arrive 20 ms apart. Each, in its own transaction, SELECTs the invoices of order 42 and, when it finds none, INSERTs one. The invariant to keep: one invoice per order.',
    scene: 'Two workers check that order 42 has no invoice, then insert one.',
    exercise: 'Make "one invoice per order" hold with the weakest mechanism.',
    kinds: ['pause'], maxFaults: 1,
    takeaway: 'A unique constraint states the invariant in the database: the second INSERT waits, gets 23505, and no lock is needed.',
  },
  {
    id: 'row-lock', step: 'Row lock', presetId: 'inventory-reserve',
    title: 'Two reservations, one item in stock',
    setup: 'Item 7 has one unit in stock. Two reservations start 10 ms apart, each in its own transaction: read the stock, then UPDATE items SET stock = stock - 1, then COMMIT. No row lock, no CHECK constraint.',
    scene: 'Two buyers read stock = 1 and each goes on to reserve the last item.',
    exercise: 'Make "stock never below zero" hold with the weakest mechanism.',
    kinds: ['pause'], maxFaults: 1,
    takeaway: 'SELECT … FOR UPDATE (or a CHECK constraint) makes the second reader wait for, or refuse, the first one\'s write.',
  },
  {
    id: 'advisory-lock', step: 'Advisory lock', presetId: 'session-lock-pool',
    title: 'A session advisory lock through a pool',
    setup: 'A pool of two connections; jobs A, B and C start 100 ms apart. Each borrows a connection, takes pg_advisory_lock(42), works for 1 s, calls pg_advisory_unlock(42) and returns the connection. Job A throws an error after taking the lock, before its work.',
    scene: 'Jobs take a session advisory lock through a connection pool; one of them can fail.',
    exercise: 'Make the lock come free when the job fails, with the weakest mechanism.',
    kinds: ['jobError'], maxFaults: 1,
    takeaway: 'pg_advisory_xact_lock is released by the transaction\'s end, rollback included: no lock outlives its job on a pooled connection.',
  },
  {
    id: 'lease', step: 'Lease', presetId: 'renew-partition',
    title: 'A lease renewed during a partition',
    setup: 'A takes a 10 s Redis lease on the ledger export and renews it every 3 s (compare-and-extend) while it works 8 s, then uploads reports/ledger.csv for 20 s; B starts 1 s later and waits for the lease. At 4 s a partition cuts A off from Redis, not from the file store, for 30 s.',
    scene: 'A worker holds a lease and renews it while it works; the network between it and Redis can fail.',
    exercise: 'Make "one export writer at a time" hold across a partition, with the weakest mechanism.',
    kinds: ['partition'], maxFaults: 1,
    takeaway: 'A lease is only as good as the holder\'s checks: stop before the write when a renewal fails, and let the store reject a stale writer.',
  },
  {
    id: 'fencing', step: 'Fencing token', presetId: 'export-lease-expiry',
    title: 'Nightly export under a 30 s lease',
    setup: 'A takes lease:export for 30 s (no renewal), works 5 s, then uploads exports/2026-11-30.csv for 20 s; B starts 1 s later and retries the lease every second. At 3 s A stops for 40 s (a GC pause), then carries on where it was.',
    scene: 'A worker holds a lease with a TTL, then uploads; it can pause longer than the TTL.',
    exercise: 'Make "one export writer at a time" hold against a pause of any length, with the weakest mechanism.',
    kinds: ['pause'], maxFaults: 1,
    takeaway: 'A lease cannot stop a paused process; the destination must reject the stale writer: a fencing token it checks.',
  },
  {
    id: 'idempotency', step: 'Idempotency', presetId: 'crash-after-effect',
    title: 'A charge, a crash and a retry',
    setup: 'A checks its job record, charges the card (POST /v1/charges), then records the job as done. It crashes right after the charge, before the record, and restarts 2 s later to run the job again.',
    scene: 'A worker charges a card, then records the job as done; it can crash in between and run the job again.',
    exercise: 'Make "one charge per order" hold across a crash, with the weakest mechanism.',
    kinds: ['crash'], maxFaults: 1,
    takeaway: 'Only the destination can recognise a repeat: an idempotency key makes the retry replay the first charge.',
  },
  {
    id: 'recovery', step: 'Recovery', presetId: 'manual-unlock',
    title: 'An operator and a live lease',
    setup: 'A holds a 60 s lease on shipping order 981 and works 30 s before calling POST /v1/shipments; B starts 1 s later and retries the lease every second. At 10 s an operator deletes the lease key by hand to unstick the queue.',
    scene: 'An operator may delete a stuck-looking lock by hand while its owner is still working.',
    exercise: 'Make "one shipment" hold even when someone deletes the lock, with the weakest mechanism.',
    kinds: ['manualDelete'], maxFaults: 1,
    takeaway: 'Recovery by hand is a fault like any other: the destination must tell a repeat (an idempotency key) or a stale writer (fencing).',
  },
];

/**
 * The lesson's question, the one its prediction answers: the scene, then "Which of these fault
 * schedules …" and the ask (`askFor` of the lesson's design): "breaks …?" naming exactly the
 * invariants its runs can break (the scenario's, in INVARIANT_TEXT's words; never one declared
 * harmless), or, when it checks none, "produce … more than once?" — a schedule ticked is one whose
 * run does.
 */
export function lessonQuestion(lesson: Pick<Lesson, 'scene'>, ask: Ask): string {
  return `${lesson.scene} Which of these fault schedules ${askInWords(ask)}`;
}

/** The lesson with this id, or undefined. */
export function findLesson(id: string): Lesson | undefined {
  return LESSON_PATH.find((l) => l.id === id);
}

/** The lesson after this one, or undefined at the end of the path. */
export function nextLesson(id: LessonId): Lesson | undefined {
  return LESSON_PATH[LESSON_PATH.findIndex((l) => l.id === id) + 1];
}
