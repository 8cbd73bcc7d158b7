/**
 * What an integrator does to bring in an example flow: Menu > Import >
 * Examples > the package > the protocol's folder > the file > Import, and, when Node-RED finds the
 * shared lis-config "LIS" there already, "Import copy" (which keeps that one).
 * Resolves once the example's own tab is there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE_NAME = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;

/** `path` is the example's place under examples/ without .json (`ASTM/roche-cobas-e411-serial`, demo/examples.ts examplePath). */
export async function importExample(page: Page, path: string, opts: { sharedLisThere: boolean }): Promise<void> {
  const tabs = await page.locator('#red-ui-workspace-tabs .red-ui-tab').count();
  await page.locator('#red-ui-header-button-sidemenu').click();
  await page.locator('#menu-item-import').click();
  await page.locator('#red-ui-clipboard-dialog').getByRole('link', { name: 'Examples' }).click();
  const examples = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
  // The package's folder, then each folder on the way, opens on a click; each may be open already from an earlier import.
  const steps = [PACKAGE_NAME, ...path.split('/')];
  for (const [i, step] of steps.entries()) {
    const item = examples.getByText(step, { exact: true });
    const next = steps[i + 1];
    if (next !== undefined && (await examples.getByText(next, { exact: true }).isVisible())) continue;
    await item.click();
  }
  await page.locator('#red-ui-clipboard-dialog-ok').click();
  if (opts.sharedLisThere) await page.getByRole('button', { name: 'Import copy' }).click();
  // Each example brings its own tab.
  await page.waitForFunction((n) => document.querySelectorAll('#red-ui-workspace-tabs .red-ui-tab').length === n, tabs + 1);
}
