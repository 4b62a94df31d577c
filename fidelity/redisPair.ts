/**
 * Redis servers of the replay's own, for a transcript with a Redis failover
 * (`fidelity/presetReplay.ts`): a primary and a second, empty server that the transcript's setup
 * makes its replica (`REPLICAOF`), each a `redis-server` child process on a free port of
 * 127.0.0.1 with no persistence (`--save '' --appendonly no`) and a temporary working directory,
 * stopped (and the directory removed) when the replay ends. The
 * shared Redis (REDIS_HOST/REDIS_PORT) is never made a primary of anything, and two replays at
 * once never share a replica (a `WAIT 1 0` on a shared primary could count another replay's).
 * `redis-server` comes from Debian's `redis-server` package, the one `scripts/ensure-services.sh`
 * runs as the shared server (REDIS_SERVER_BIN overrides the binary).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect, createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { newRedis } from './redisHarness';

/** The binary that runs the replay's own servers. */
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** One server the replay started: its address, a client, and the process (stopped by `stop`). */
export interface OwnRedis {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly client: Redis;
  /** Its `redis_version` (INFO server). */
  readonly version: string;
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now (the OS picks it). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = tcpConnect({ host: '127.0.0.1', port });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => { sock.destroy(); resolve(false); });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts one `redis-server` on a free port of 127.0.0.1 and waits until it answers PING (at most
 * 10 s). Throws Error when it does not start (binary missing, port taken meanwhile).
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  // Its own working directory: a replica writes the RDB its primary sends there before loading it.
  const dir = mkdtempSync(join(tmpdir(), 'lockscope-redis-'));
  const child: ChildProcess = spawn(REDIS_SERVER_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning', '--dir', dir], { stdio: 'ignore' });
  let failed: Error | null = null;
  child.on('error', (e) => { failed = e; });
  const client = newRedis(0, { host: '127.0.0.1', port });
  client.on('error', () => undefined);
  const stop = async (): Promise<void> => {
    client.disconnect();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(3_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100 && failed === null && child.exitCode === null; i++) {
    if (await accepts(port)) {
      await client.connect();
      if ((await client.ping()) === 'PONG') {
        const info = String(await client.info('server'));
        const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';
        return { host: '127.0.0.1', port, client, version, stop };
      }
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`could not start ${REDIS_SERVER_BIN} on 127.0.0.1:${port}${failed !== null ? `: ${(failed as Error).message}` : ''}`);
}
