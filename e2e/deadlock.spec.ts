import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

test('lock-order-deadlock: the wait-for graph shows the cycle at the cursor, then the 40P01 breaks it', async ({ page }) => {
  await page.goto('/#/sim/lock-order-deadlock');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await expect(page.getByRole('region', { name: 'Verdict' })).toContainText('A waited 1 s for a lock');
  // Step to e10, B's wait for lock 1: the cycle closes.
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('Home');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector).toContainText('after e10');
  const graph = inspector.getByTestId('wait-for-graph');
  await expect(graph.getByRole('img', { name: /Wait-for graph: A \(c1\) waits for B \(c2\); B \(c2\) waits for A \(c1\); a cycle/ })).toBeVisible();
  await expect(graph.locator('li.cycle')).toHaveCount(2);
  await expect(inspector.getByTestId('wait-for-deadlock')).toContainText('40P01');
  for (const theme of ['dark', 'projector'] as const) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
    const results = await new AxeBuilder({ page }).include('[data-testid="wait-for-graph"]').analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${theme} ${v.id}: ${v.help}`)).toEqual([]);
  }
  // e11: A's 40P01, narrated as who waited for whom; the graph is gone once nobody waits in a cycle.
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('.log-row.current')).toContainText('A waits for B (advisory lock 2), B waits for A (advisory lock 1)');
  await expect(page.locator('.log-row.current')).toContainText('40P01');
});
