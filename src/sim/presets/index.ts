/** The scenario catalogue of product.md, in the order a lesson walks through it (invariants, locks, leases and fencing, recovery). */
import type { Preset } from './build';
import { invoiceRace } from './invoiceRace';
import { balanceUpdate } from './balanceUpdate';
import { inventoryReserve } from './inventoryReserve';
import { thumbnail } from './thumbnail';
import { adminBypass } from './adminBypass';
import { sessionLockPool } from './sessionLockPool';
import { poolerSessionLock } from './poolerSessionLock';
import { lockOrderDeadlock } from './lockOrderDeadlock';
import { exportLeaseExpiry } from './exportLeaseExpiry';
import { unsafeRelease } from './unsafeRelease';
import { fenceIgnored } from './fenceIgnored';
import { renewPartition } from './renewPartition';
import { watchdogStarved } from './watchdogStarved';
import { pexpireRenewal } from './pexpireRenewal';
import { fencedDbWrite } from './fencedDbWrite';
import { failoverFence } from './failoverFence';
import { crashAfterEffect } from './crashAfterEffect';
import { manualUnlock } from './manualUnlock';
import { remoteCallInTxn } from './remoteCallInTxn';
import { serializableRetry } from './serializableRetry';
import { queueRedelivery } from './queueRedelivery';
import { skipLockedClaim } from './skipLockedClaim';

export type { Preset } from './build';

/** All 22 presets. */
export const PRESETS: readonly Preset[] = [
  invoiceRace, balanceUpdate, inventoryReserve, thumbnail,
  adminBypass, sessionLockPool, poolerSessionLock, lockOrderDeadlock, skipLockedClaim,
  exportLeaseExpiry, unsafeRelease, fenceIgnored, renewPartition, watchdogStarved, pexpireRenewal, fencedDbWrite, failoverFence,
  crashAfterEffect, manualUnlock, remoteCallInTxn, serializableRetry, queueRedelivery,
];

/** The preset with this id, or undefined. */
export function findPreset(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}

/** Lesson headings in catalogue order. */
export const LESSONS: readonly { readonly id: Preset['lesson']; readonly title: string }[] = [
  { id: 'invariants', title: 'Start from the invariant' },
  { id: 'locks', title: 'Locks in the database' },
  { id: 'leases', title: 'Leases and fencing' },
  { id: 'recovery', title: 'Recovery and retries' },
];
