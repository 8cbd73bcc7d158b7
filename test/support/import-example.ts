/**
 * What an integrator does to bring in an example flow: Menu > Import >
 * Examples > the package > the file > Import, and, when Node-RED finds the
 * shared lis-config "LIS" there already, "Import copy" (which keeps that one).
 * Resolves once the example's own tab is there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE_NAME = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;

export async function importExample(page: Page, file: string, opts: { sharedLisThere: boolean }): Promise<void> {
  const tabs = await page.locator('#red-ui-workspace-tabs .red-ui-tab').count();
  await page.locator('#red-ui-header-button-sidemenu').click();
  await page.locator('#menu-item-import').click();
  await page.locator('#red-ui-clipboard-dialog').getByRole('link', { name: 'Examples' }).click();
  const examples = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
  const item = examples.getByText(file, { exact: true });
  // The package's folder opens on a click; it may be open already from an earlier import.
  if (!(await item.isVisible())) await examples.getByText(PACKAGE_NAME, { exact: true }).click();
  await item.click();
  await page.locator('#red-ui-clipboard-dialog-ok').click();
  if (opts.sharedLisThere) await page.getByRole('button', { name: 'Import copy' }).click();
  // Each example brings its own tab.
  await page.waitForFunction((n) => document.querySelectorAll('#red-ui-workspace-tabs .red-ui-tab').length === n, tabs + 1);
}
