/**
 * Corrections decided by a person, in a real editor on the packed package: folder-link -> file-message (the
 * QuantStudio dialect) -> test-mapper -> lis-send-results to a loopback LIS. Two exports are delivered, then each is
 * exported again under its name with one value changed. The Lab sidebar shows each correction as a row of its own,
 * old value (with its file and time) beside the new one; the technologist sends one, whose new value reaches the LIS
 * once, and dismisses the other with why, which the journal keeps.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import { startEditorSession, waitForText, type EditorSession } from '../support/browser';
import { keepElementShot } from '../support/lis-editor';
import { waitUntil } from '../support/wait';
import { type ChangedValue, expectedResults, exportFile, FILE_IDS, fileFlow, reExport, resultsAtLis } from '../e2e/file-flow';

const TOKEN = 'held-correction-token-5c0e';
const CORRECTIONS = '.lis-lab-holds .lis-lab-hold[data-kind="correction"]';

let work: string;
let folder: string;
let userDir: string;
let stub: LisStub;
let session: EditorSession | undefined;
let page: Page;

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const atLis = () => resultsAtLis(stub.requests);
const inDone = (name: string) => existsSync(join(folder, 'done', name));

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-correction-browser-'));
  folder = join(work, 'export');
  mkdirSync(folder);
  userDir = join(work, 'userDir');
  mkdirSync(userDir);
  stub = await new LisStub().start();
  stub.reply('/results', { body: { status: 'success' } });
  stub.reply('/caught', { body: { status: 'ok' } });
  // The token as the editor's credentials, not from the environment: this Node-RED may be shared with other files.
  const flows = fileFlow({ folder, lisUrl: (p) => stub.url(p), pollMs: 100, settleMs: 300 }).map((n) => {
    if (n.id !== FILE_IDS.lis) return n;
    const { bearerTokenEnv: _env, ...lis } = n as Record<string, unknown>;
    return { ...lis, credentials: { bearerToken: TOKEN } };
  });
  session = await startEditorSession(userDir, flows, FILE_IDS.folder, { width: 1400, height: 1100 });
  page = session.page;
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('a correction in the Lab sidebar', () => {
  it('each changed value is a row of its own with old and new; Send posts the new value to the LIS once, Dismiss keeps why', async () => {
    writeFileSync(join(folder, 'run1.txt'), exportFile(1));
    writeFileSync(join(folder, 'run2.txt'), exportFile(2));
    const delivered = [...expectedResults(1), ...expectedResults(2)];
    await waitUntil(() => inDone('run1.txt') && inDone('run2.txt') && atLis().length === delivered.length, 20_000, 'both exports delivered and in done/', 50);
    assert.deepEqual([...atLis()].sort(), [...delivered].sort());

    // Exported again after a technologist reopened each run: one well's Ct changed in each.
    const one = reExport(1, 4);
    const two = reExport(2, 10);
    writeFileSync(join(folder, 'run1.txt'), one.bytes);
    writeFileSync(join(folder, 'run2.txt'), two.bytes);
    await waitUntil(() => inDone('run1.2.txt') && inDone('run2.2.txt'), 20_000, 'both new versions read and in done/', 50);

    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
    const rowOf = (c: ChangedValue) => page.locator(CORRECTIONS).filter({ hasText: c.sample });
    await waitUntil(async () => (await page.locator(CORRECTIONS).count()) === 2, 15_000, async () => `two correction rows, not ${JSON.stringify(await page.locator(CORRECTIONS).allInnerTexts())}`, 100);
    for (const [c, file] of [[one.change!, 'run1.txt'], [two.change!, 'run2.txt']] as const) {
      const line = rowOf(c).locator('.lis-lab-correction');
      assert.equal(await line.count(), 1, `${c.sample}: one correction line`);
      // Old value, where and when it was delivered from, then the new one and its file.
      // (File names are isolated from the text around them: U+2068 and U+2069 on either side.)
      const name = `\u2068?${literal(file)}\u2069?`;
      await waitForText(line, new RegExp(`^${c.sample}: ${literal(c.old)} \\(delivered from ${name}, .+\\) \u2192 ${literal(c.new)} \\(now in ${name}\\)$`));
      assert.equal(await rowOf(c).locator('.lis-lab-hold-send').isEnabled(), true, `${c.sample}: Send can be pressed`);
    }
    await keepElementShot(page.locator('.lis-lab-holds'), 'held-correction.png');
    assert.deepEqual(atLis().filter((x) => x.endsWith(`|${one.change!.new}`) || x.endsWith(`|${two.change!.new}`)), [], 'no new value sent before a person decided');

    // Send: the new value at the LIS once, the row gone; pressing again through the API is refused.
    const sent = `${one.change!.sample}|UTR3|${one.change!.new}`;
    const ids = (await held()).filter((h) => h.samples.includes(one.change!.sample)).map((h) => h.id);
    assert.equal(ids.length, 1);
    await rowOf(one.change!).locator('.lis-lab-hold-send').click();
    await waitUntil(() => atLis().includes(sent), 15_000, 'the corrected value at the LIS', 50);
    await rowOf(one.change!).waitFor({ state: 'detached', timeout: 15_000 });
    const again = await fetch(`${session!.red.url}/lis-bridge/holds/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids }) });
    assert.equal(again.status, 409, 'a second send is refused');

    // Dismiss, with why: nothing sent, the reason kept in the journal.
    const why = 'Ct checked on the bench: the first value stands';
    page.once('dialog', (d) => void d.accept(why));
    await rowOf(two.change!).locator('.lis-lab-hold-dismiss').click();
    await rowOf(two.change!).waitFor({ state: 'detached', timeout: 15_000 });
    assert.deepEqual(await held(), []);
    const card = page.locator(`.lis-lab-link[data-node="${FILE_IDS.folder}"]`);
    await waitForText(card.locator('.lis-lab-resolved'), 'held results, by a person today: sent 1 · dismissed 1 · still waiting 0');
    assert.ok(journalText().includes(JSON.stringify(why)), 'the reason is in the journal');
    assert.deepEqual(atLis().filter((x) => x === sent), [sent], 'the corrected value once');
    assert.equal(atLis().length, delivered.length + 1, 'nothing else sent: the same values of the new versions not again, the dismissed one not at all');
    assert.deepEqual(session!.pageErrors, []);
  });
});

async function held(): Promise<Array<{ id: string; samples: string[] }>> {
  const body = (await (await fetch(`${session!.red.url}/lis-bridge/held`)).json()) as { holds: Array<{ id: string; samples: string[] }> };
  return body.holds;
}

/** The session's journal files, as one text. */
function journalText(): string {
  const dir = join(userDir, 'lis-bridge');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.jsonl')) files.push(readFileSync(join(d, e.name), 'utf8'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return files.join('\n');
}
