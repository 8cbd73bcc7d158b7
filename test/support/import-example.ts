/**
 * What an integrator does to bring in an example flow: Menu > Import >
 * Examples > the package > the protocol's folder > the file > Import, and, when Node-RED finds the
 * shared lis-config "LIS" there already, "Import copy" (which keeps that one).
 * Resolves once the example's own tab is there.
 *
 * Every step waits for what the editor does, never for a guess: Node-RED's
 * Import button is enabled only while a file is the selected item of the
 * Examples tree (its onselect), and the dialog itself selects each library
 * tree's first item 100 ms after it opens (RED.library's data(..., selectFirst)),
 * which disables Import again. On a loaded machine that timer came after the
 * file was picked: the tree's root was selected, Import stayed disabled, and
 * the click on it timed out. So the file is picked only once that first
 * selection has come, and picked again while another item is selected (under
 * load its folder was found selected after the file had been picked).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitUntil } from './wait';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE_NAME = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
/** For each step of an import: the editor fetches folder listings and the flow from a runtime that may be slow under load. */
const STEP_MS = 60_000;

/** `path` is the example's place under examples/ without .json (`ASTM/roche-cobas-e411-serial`, demo/examples.ts examplePath). */
export async function importExample(page: Page, path: string, opts: { sharedLisThere: boolean }): Promise<void> {
  const tabs = await page.locator('#red-ui-workspace-tabs .red-ui-tab').count();
  await page.locator('#red-ui-header-button-sidemenu').click();
  await page.locator('#menu-item-import').click();
  await page.locator('#red-ui-clipboard-dialog').getByRole('link', { name: 'Examples' }).click({ timeout: STEP_MS });
  const examples = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
  const selected = examples.locator('.red-ui-treeList-label.selected');
  // The dialog's own first selection (the tree's root), before anything is picked: it would unpick the file.
  await selected.first().waitFor({ state: 'attached', timeout: STEP_MS });
  // The package's folder, then each folder on the way, opens on a click; a click on an open one would close it.
  // Under load a folder's listing comes late and the tree is drawn again, closing what was opened: a folder is
  // opened until the next name on the way is shown, clicked again only when it is seen closed a while after a click.
  const names = [PACKAGE_NAME, ...path.split('/')];
  const file = names[names.length - 1]!;
  for (let i = 0; i < names.length - 1; i++) {
    const label = examples.locator('.red-ui-treeList-label').filter({ has: page.getByText(names[i]!, { exact: true }) });
    const next = examples.getByText(names[i + 1]!, { exact: true });
    let clickedAt = 0;
    await waitUntil(
      async () => {
        if (await next.isVisible()) return true;
        const open = await label.evaluate((l) => l.parentElement!.classList.contains('expanded'), undefined, { timeout: STEP_MS });
        if (!open && Date.now() - clickedAt > 3000) {
          await label.click({ timeout: STEP_MS });
          clickedAt = Date.now();
        }
        return false;
      },
      STEP_MS,
      `${names[i + 1]} to be shown under ${names[i]} in the Examples tree`,
      250,
    );
  }
  const fileLabel = examples.getByText(file, { exact: true });
  await fileLabel.click({ timeout: STEP_MS });
  const importButton = page.locator('#red-ui-clipboard-dialog-ok');
  // A folder whose listing arrives late is selected again once it is drawn, unpicking the file: pick it again then.
  await waitUntil(
    async () => {
      if (await importButton.isEnabled()) return true;
      if (!(await selected.allTextContents()).includes(file)) await fileLabel.click({ timeout: STEP_MS });
      return false;
    },
    STEP_MS,
    async () => `Import to be enabled: Node-RED enables it while ${path} is the selected item of the Examples tree (selected: ${JSON.stringify(await selected.allTextContents())})`,
    250,
  );
  await importButton.click();
  if (opts.sharedLisThere) await page.getByRole('button', { name: 'Import copy' }).click({ timeout: STEP_MS });
  // Each example brings its own tab.
  await page.waitForFunction((n) => document.querySelectorAll('#red-ui-workspace-tabs .red-ui-tab').length === n, tabs + 1, { timeout: STEP_MS });
}
