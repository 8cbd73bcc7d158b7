/**
 * Every result the analyzer sends ends in exactly one way, and the Lab sidebar's counts say so: one whole run of the
 * Mindray CL-2000i HL7 example, installed from the packed package, in which results end every way they can.
 *
 * - delivered: the samples it scans, queried, ordered, measured, at the LIS;
 * - held for a person: a result whose code no LIS test is mapped for, then dismissed by a person with why;
 * - discarded: a sample whose results the LIS refuses (400), its held batch discarded by a person;
 * - not for the LIS: a QC run, counted by its dialect's rule.
 *
 * Then the card of the link (GET /lis-bridge/links, what the sidebar shows) is checked against the journal file read
 * on its own and against what the simulator sent and the loopback LIS received: every result read is in exactly one
 * of the first endings, the endings add up to the results read, and the sidebar says everything has ended only once
 * it has.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { readJournalFile } from '../support/journal-file';
import { waitUntil } from '../support/wait';
import { E2eRun, installPackage, loadExample, postAdmin, resultItems, useRun, type Installation } from './harness';

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

interface Card {
  node: string;
  waiting: number;
  today: Record<'results' | 'delivered' | 'heldForPerson' | 'discarded' | 'notForLis' | 'released' | 'dismissed', number>;
}

const EXAMPLE = 'mindray-cl2000i-hl7-tcp';
/** The LIS refuses this sample's results (400): they end in a held batch, which a person discards. */
const REFUSED = 'EN1003';
/** Sent unasked with a code no row of the example's map holds (the map has 1 to 4). */
const UNMAPPED_SAMPLE = 'EN2001';
const UNMAPPED_CODE = '9';

describe(`every result of a whole run of ${EXAMPLE} in exactly one ending, as the Lab sidebar counts them`, () => {
  const { current, check } = useRun(() => new E2eRun({ example: loadExample(EXAMPLE), installation: installation!, samples: ['EN1001', 'NOORDER-EN', 'EN1002'], seed: 20261202, qc: { control: 'QC1', levels: 3, tests: ['1', '2'] } }));
  let extra: { qc: number; unmapped: number; mapped: number; refused: number } | undefined;

  const card = async (r: E2eRun): Promise<Card> => {
    const body = (await (await fetch(`${r.red!.url}/lis-bridge/links`)).json()) as { links: Card[] };
    assert.equal(body.links.length, 1, 'the example has one link');
    return body.links[0]!;
  };

  before(async () => {
    const r = current()!;
    const sim = r.hl7Sim!;
    // After the scanned samples: a QC run, a sample with an unmapped code beside a mapped one, and one the LIS refuses.
    // With its level, lot, mean and SD in each result (the Mindray CL's control fields): judged by the example's lis-qc, in control.
    const qc = await sim.sendControlRun();
    const unmapped = await sim.sendResults(UNMAPPED_SAMPLE, ['1', UNMAPPED_CODE]);
    r.stub!.handle('/results', (req) =>
      JSON.stringify(req.json).includes(`"${REFUSED}"`) ? { status: 400, body: { message: 'SampleNumber not accepted', errors: [] } } : { body: { status: 'success' } },
    );
    const refused = await sim.sendResults(REFUSED, ['1', '2', '3']);
    extra = { qc: qc.values.length, unmapped: 1, mapped: unmapped.results.length - 1, refused: refused.results.length };
    await waitUntil(async () => (await r.red!.held()).batches.length === 1 && (await r.red!.held()).holds.length === 1, 20_000, 'the refused batch and the unmapped result held');
  });

  it('reads every result the analyzer sent, QC included, and holds the unmapped one and the refused batch', check(async (r) => {
    const sentByAnalyzer = r.summary!.samples.filter((s) => s.resultsAcked).reduce((n, s) => n + (s.results?.length ?? 0), 0);
    const e = extra!;
    const c = await card(r);
    assert.equal(c.today.results, sentByAnalyzer + e.qc + e.unmapped + e.mapped + e.refused, 'results read');
    assert.equal(c.today.notForLis, e.qc, 'the QC run is not for the LIS');
    // And judged in the bridge: each test's three levels recorded against the targets the analyzer sent, in control.
    // The run is judged as its message is read and its points are on disk a moment later (the view shows them then).
    type QcView = { analyzers: Array<{ tests: Array<{ test: string; state: string; series: Array<{ material: string; target: { source: string } | null }> }> }> };
    const qcTests = async () => ((await (await fetch(`${r.red!.url}/lis-bridge/qc`)).json()) as QcView).analyzers[0]!.tests;
    await waitUntil(async () => (await qcTests()).every((t) => t.series.length === 3), 10_000, "each test's three control series stored");
    assert.deepEqual((await qcTests()).map((t) => [t.test, t.state, t.series.map((x) => `${x.material} ${x.target?.source}`).sort().join(', ')]), [['1', 'in-control', 'L1 message, L2 message, L3 message'], ['2', 'in-control', 'L1 message, L2 message, L3 message']]);
    assert.equal(c.today.heldForPerson, 1, 'the unmapped result is held for a person');
    assert.equal(c.waiting, 1);
    // Not ended yet: the refused batch is held, the unmapped result waits. The sidebar must not say all is well.
    assert.equal(c.today.delivered + c.today.heldForPerson + c.today.discarded + c.today.notForLis, c.today.results - e.refused);
    assert.equal(((await r.red!.held()) as unknown as { summary: { everythingReached: boolean } }).summary.everythingReached, false);
  }));

  it('once people dismissed the held result and discarded the refused batch, the endings add up to the results read, each counted once, as the journal file says', check(async (r) => {
    const held = await r.red!.held();
    await postAdmin(r, '/lis-bridge/holds/dismiss', { ids: held.holds.map((h) => h.id), note: 'not reported to the LIS' });
    await postAdmin(r, `/lis-bridge/held/${encodeURIComponent(held.batches[0]!.key)}/discard`, {});
    await waitUntil(async () => (await card(r)).today.discarded > 0 && (await card(r)).waiting === 0, 15_000, 'the batch discarded and the hold dismissed on the card');
    const c = (await card(r)).today;
    const e = extra!;

    // The journal file, read on its own: each result of a batch and of a hold, where it ended.
    const file = readJournalFile(dirname(r.red!.journalFile));
    const size = (body: unknown) => (Array.isArray(body) ? body.length : 0);
    const batches = [...file.batches.values()];
    const count = (pick: (b: (typeof batches)[number]) => boolean) => batches.filter(pick).reduce((n, b) => n + size(b.body), 0);
    const holdLines = file.lines.filter((l) => l.e === 'hold').flatMap((l) => l.holds as Array<{ id: string; results: unknown[] }>);
    const dismissed = new Set(file.lines.filter((l) => l.e === 'holdu' && l.action === 'dismiss').map((l) => String(l.id)));
    const journal = {
      delivered: count((b) => b.state === 'delivered' && !b.key.startsWith('hold:')),
      heldForPerson: holdLines.reduce((n, h) => n + h.results.length, 0),
      discarded: count((b) => b.state === 'discarded' && !b.key.startsWith('hold:')),
      released: count((b) => b.state === 'delivered' && b.key.startsWith('hold:')),
      dismissed: holdLines.filter((h) => dismissed.has(h.id)).reduce((n, h) => n + h.results.length, 0),
    };
    assert.deepEqual(
      { delivered: c.delivered, heldForPerson: c.heldForPerson, discarded: c.discarded, released: c.released, dismissed: c.dismissed },
      journal,
      'the card counts what the journal file holds',
    );
    assert.equal(c.delivered + c.heldForPerson + c.discarded + c.notForLis, c.results, 'each result read ended once');
    assert.equal(c.heldForPerson, c.released + c.dismissed, 'each held result resolved once');
    assert.deepEqual({ discarded: c.discarded, notForLis: c.notForLis, heldForPerson: c.heldForPerson }, { discarded: e.refused, notForLis: e.qc, heldForPerson: e.unmapped });

    // What the LIS got: exactly the delivered ones, none twice, nothing of the refused sample accepted, nothing of QC.
    const atLis = resultItems(r.stub!).filter((i) => i.SampleNumber !== REFUSED);
    assert.equal(atLis.length, c.delivered, 'the LIS accepted as many results as the card says were delivered');
    assert.equal(new Set(atLis.map((i) => `${i.SampleNumber} ${i.TestCode}`)).size, atLis.length, 'none twice');
    assert.ok(!atLis.some((i) => i.SampleNumber === 'QC1'), 'no QC at the LIS');
    assert.equal(atLis.filter((i) => i.SampleNumber === UNMAPPED_SAMPLE).length, e.mapped, 'the mapped result beside the unmapped one went on');

    // Only now the sidebar's verdict: everything received reached the LIS, was dismissed by a person, or is not for it.
    assert.equal(((await r.red!.held()) as unknown as { summary: { everythingReached: boolean } }).summary.everythingReached, true);
  }));
});
