import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { watchErrors } from './support';

test('Run it yourself: the transcript downloads as the CLI prints it, a file per session; the preset says what the fidelity run checked', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/lock-order-deadlock');
  const share = page.getByRole('region', { name: 'Share and export' });
  await expect(share.getByRole('heading', { name: 'Run it yourself' })).toBeVisible();
  // This build's report is current (or absent): either way the line says which, never a stale claim.
  // lock-order-deadlock touches PostgreSQL only: Redis is not named.
  await expect(share.getByTestId('fidelity')).toHaveText(/^(Checked against PostgreSQL 15\.\d+: 0 differences in all \d+ steps|Not checked in this build)$/);

  const [combined] = await Promise.all([page.waitForEvent('download'), share.getByRole('button', { name: 'Download transcript' }).click()]);
  expect(combined.suggestedFilename()).toBe('lock-order-deadlock-without-fix-transcript.txt');
  const text = readFileSync(await combined.path(), 'utf8');
  // The CLI exits 0 once the transcript is written (the violated verdict is no error of the export); its output is the same text.
  const cli = spawnSync('npx', ['tsx', 'src/cli/simulate.ts', 'lock-order-deadlock', '--transcript'], { encoding: 'utf8' });
  expect(cli.status).toBe(0);
  expect(text.trimEnd()).toBe(cli.stdout.trimEnd());
  expect(text).toContain('SELECT pg_advisory_xact_lock(2);\n-- expect: (blocks) waits (advisory lock 2 held by session c2)');

  const [c2] = await Promise.all([page.waitForEvent('download'), share.getByRole('button', { name: 'lock-order-deadlock-without-fix-c2.sql' }).click()]);
  const c2Text = readFileSync(await c2.path(), 'utf8');
  expect(c2Text).toMatch(/^-- c2: psql \(pool connection c2; used by B\)/);
  expect(c2Text).not.toContain('CREATE TABLE');

  // Each catalogue card says it too.
  await page.goto('/#/');
  await expect(page.getByRole('listitem').filter({ hasText: 'lock-order-deadlock' }).getByTestId('fidelity')).toBeVisible();
  expect(errors).toEqual([]);
});

test('queue-redelivery: Run it yourself and the catalogue card claim no server; the transcript says the SQS calls are not replayed (issue 13)', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/queue-redelivery');
  const share = page.getByRole('region', { name: 'Share and export' });
  await expect(share.getByText('This run sends nothing to PostgreSQL or Redis')).toBeVisible();
  await expect(share.getByTestId('not-replayed')).toContainText(/the SQS queue charges \(Lockscope's model of SQS, no server\): ReceiveMessage ×\d+, DeleteMessage ×2/);
  await expect(share.getByTestId('fidelity')).toHaveText('Not replayed against a server: this run touches no PostgreSQL or Redis');
  await page.goto('/#/');
  const card = page.getByRole('listitem').filter({ hasText: 'queue-redelivery' }).getByTestId('fidelity');
  await expect(card).toHaveText('Not replayed against a server: these runs touch no PostgreSQL or Redis');
  await expect(card).not.toContainText('Checked against');
  const cli = spawnSync('npx', ['tsx', 'src/cli/simulate.ts', 'queue-redelivery', '--transcript'], { encoding: 'utf8' });
  expect(cli.stdout).toContain('-- Not replayed: no server this transcript names receives these calls of the run');
  expect(cli.stdout).toContain("(Lockscope's model of SQS, not replayed): ReceiveMessage QueueUrl=charges");
  expect(errors).toEqual([]);
});

test('failover-fence: the failover is replayed on a real replica, so Run it yourself claims all its steps; the transcript names both servers (issue 13)', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/failover-fence');
  const share = page.getByRole('region', { name: 'Share and export' });
  await expect(share.getByRole('heading', { name: 'Run it yourself' })).toBeVisible();
  // A current report covers every step (the failover on a replica of the replay's own); a stale or absent one claims nothing.
  await expect(share.getByTestId('fidelity')).toHaveText(/^(Checked against Redis 7\.[\d.]+: 0 differences in all 9 steps|Not checked in this build)$/);
  const [combined] = await Promise.all([page.waitForEvent('download'), share.getByRole('button', { name: 'Download transcript' }).click()]);
  const text = readFileSync(await combined.path(), 'utf8');
  expect(text).toContain('-- ==== setup: redis-cli -p 6380 (session replica), once: the second server replicates the first ====\nREPLICAOF 127.0.0.1 6379');
  expect(text).toMatch(/-- 2\. replica \(the failover\) at 0 ms: a command that reproduces the failover\nREPLICAOF NO ONE\n-- expect: OK/);
  expect(text).not.toContain('stops being meaningful');
  expect(errors).toEqual([]);
});
