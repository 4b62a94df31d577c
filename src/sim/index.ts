/**
 * Public entry of the simulation core: validate a scenario, run it, look up presets.
 * Pure and deterministic (see README.md in this folder).
 */
export { runScenario, startRun, type RunInProgress, snapshotWorld, verdictOf, leaseEntriesOf, type RunResult, type RunOptions, type Verdict, type VerdictStatus, type CutShort, type RunMetrics, type WorldSnapshot, type Distribution } from './engine/run';
export { traceHash, sqlCallOf, destinationCallOf, type TraceEvent, type TraceKind, type BuiltinTraceKind, type EventData, type CheckedEvent, type ResourceCall, type BuiltinCall } from './engine/trace';
export { validateScenario, formatErrors, formatZodIssues, type ValidationError, type ValidationResult } from './scenario/validate';
export { parseScenario, upgradeScenario, CURRENT_SCENARIO_VERSION } from './scenario/migrate';
export { LIMITS, scenarioSchema, faultSchema, mechanismSchema, clientSchema, DEFAULT_CLIENT, type Scenario, type Fault, type FaultKind, type Mechanism, type ClientConfig, type Step, type Invariant, type WorkerSpec, type ProcessSpec } from './scenario/schema';
export { PRESETS, LESSONS, findPreset, type Preset } from './presets';
export { INVARIANT_TEXT, checkersFor, checkTrace, performedEffects, duplicateEffects, protectedSteps, type Finding, type FindingListener, type InvariantChecker, type PerformedEffect, type DuplicateEffect } from './invariants';
export type { WaitCycleEdge } from './invariants/types';
export type { Beliefs, WorkerStateName, WorkerOutcome } from './workers/workerMachine';
export type { LockRow, SessionState, WaitEdge, WaitCycle } from './resources/database';
export { lockInWords } from './resources/database';
export { findCycleThrough } from './resources/deadlock';
export { pgLockLine, type PgLockRow, type PgLockMode } from './resources/pgLocks';
export type { Row, SqlValue } from './resources/sqlTypes';
export type { DestinationWrite, DestinationSnapshot, WriteStatus } from './resources/destination';
export type { PoolSnapshot } from './resources/connectionPool';
export type { PoolerSnapshot, PoolerCmd, PoolerReply } from './resources/pooler';
export type { EtcdSnapshot, EtcdLeaseSnapshot, EtcdKv, EtcdCmd, EtcdReply } from './resources/lockService';
export { registerFaultKind, faultKinds, faultKindOf, describeFault, faultLane, generateFault, type FaultKindDef, type FaultBase, type FaultContext, type FaultEffect, type FaultLane, type FaultLaneKind } from './faults/registry';
export { faultPlacement, identifier, durationMs, positiveMs } from './scenario/primitives';
export { fmtTime, fmtMs, fmtSeconds, fmtList } from './engine/fmt';
export { Rng } from './engine/rng';
export { registerResource, resourceDefs, type Resource, type ResourceDef, type ResourceHost, type ResourceNotice, type Execution, type Completion } from './resources/resource';
export type { World, WorkerRuntime, Narrated } from './engine/world';
export { MODEL_SIMPLIFICATIONS, type Simplification } from './simplifications';
export { SWITCHES, relevantSwitches, flipSwitch, switchValueText, switchHint, switchOptions, type SwitchDef, type SwitchFacts, type SwitchOption } from './controls/switches';
export { switchStatus, switchStatusSteps, switchStatuses, switchValues, faultInertReason, runHashOf, type SwitchStatus } from './controls/status';
export { usesDestination, usesDatabase } from './controls/uses';
export { buildTranscript, renderTranscript, renderSessionScript, redisFilesPipeable, redisCleanup, REPLICA_SERVER_COMMAND, setsDeadlockTimeout, deadlockVictimEvents, TRANSCRIPT_LONG_DEADLOCK_TIMEOUT, replayCoverage, stepRanges, stepRangesText, transcriptTools, REPLAY_LIMIT_WHY, REPLICA_SESSION, REPLICA_PORT, TTL_WAIT_MARGIN_MS, FAILOVER_ACTOR, FORCED_EXPIRY_ACTOR, waitLine, type RedisWait, type TtlSetBy, type ReplayLimit, type ReplayStop, type StepRange, type Transcript, type TranscriptEntry, type TranscriptStep, type TranscriptNote, type TranscriptSession } from './transcript/transcript';
