/**
 * The bench's own machinery, in a few seconds: percentiles, the limits quick
 * mode judges ratios by, the UART pacing of section 3, reading a profile
 * inside a window, and the in-process sections on tiny sizes. No assertion
 * depends on how fast this machine is, or on python3 being installed (the
 * full bench is `npm run bench`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryTransport } from '../../lib/sim';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { benchCodec, corpus, joinRecords, splitRecords, standardCorpus } from '../../bench/codec';
import { benchHl7Codec, hl7Corpus } from '../../bench/hl7-codec';
import { benchAdversarial } from '../../bench/adversarial';
import { benchFilePeer } from '../../bench/file-peer';
import { LIMITS, judge, type Limit } from '../../bench/limits';
import { benchLinkInProcess } from '../../bench/link-inprocess';
import { summarizeProfile } from '../../bench/profile';
import { Report, type Figure } from '../../bench/report';
import { percentile, summarize } from '../../bench/stats';
import { TappedTransport } from '../../bench/tap';
import { waitUntil } from '../support/wait';

const fig = (key: string, value: number | null, unit = 'x'): Figure => ({ key, section: 's', label: key, value, unit });

describe('bench statistics', () => {
  it('takes nearest-rank percentiles, so every figure is a measured value', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => 1000 - i); // 1000 .. 1
    const s = summarize(samples);
    assert.equal(s.p50, 500);
    assert.equal(s.p99, 990);
    assert.equal(s.max, 1000);
    assert.equal(percentile([7], 99), 7);
    assert.ok(Number.isNaN(summarize([]).p50));
  });
});

describe('quick mode limits', () => {
  const limits: Limit[] = [
    { key: 'up', section: 1, min: 2, why: 'at least 2' },
    { key: 'down', section: 4, max: 3, why: 'at most 3' },
    { key: 'python', section: 1, min: 4, why: 'python-astm' },
    { key: 'reference', section: 1, min: 0.5, unless: 'python', why: 'in-process stand-in' },
  ];

  it('fails a ratio beyond its limit, in either direction, and passes one on it', () => {
    const judged = judge([fig('up', 1.9), fig('down', 3.1), fig('python', 4), fig('reference', 0.1)], limits);
    assert.deepEqual(
      judged.map((j) => [j.limit.key, j.within]),
      [
        ['up', false],
        ['down', false],
        ['python', true],
      ],
    );
    assert.deepEqual(
      judge([fig('up', 2), fig('down', 3)], limits).map((j) => j.within),
      [true, true],
    );
  });

  it('judges the in-process reference only when python-astm was not measured', () => {
    const missing = judge([fig('python', null), fig('reference', 0.4)], limits);
    assert.deepEqual(
      missing.map((j) => [j.limit.key, j.within]),
      [['reference', false]],
    );
    assert.deepEqual(judge([fig('reference', 0.4)], limits).map((j) => j.limit.key), ['reference']);
  });

  it('never judges an absolute figure, nor one that was not measured', () => {
    const absolute = ['codec.decode.MBps', 'codec.encode.MBps', 'link.inprocess.p50', 'hostQuery.ours.p99', 'scale.200.resultsPerS', 'journal.append.w1.perS', 'journal.ack.on.p50'];
    assert.deepEqual(judge(absolute.map((k) => fig(k, 1e-9))), []);
    assert.deepEqual(judge([fig('serial.lineUse', Number.NaN)]), []);
    for (const limit of LIMITS) {
      assert.ok(!absolute.includes(limit.key), limit.key);
      assert.ok(limit.min !== undefined || limit.max !== undefined, `${limit.key} has a limit`);
      assert.ok(limit.section >= 1 && limit.section <= 7, `${limit.key} names its section`);
    }
  });
});

describe('section 1 references', () => {
  it('split and join the standard-delimiter corpus back to its text', () => {
    const texts = standardCorpus(corpus());
    assert.ok(texts.length > 10);
    for (const text of texts) {
      assert.ok(text.startsWith('H|\\^&'));
      assert.equal(joinRecords(splitRecords(text)), text);
      assert.equal(splitRecords(text).length, decodeMessage(text).records.length);
    }
  });
});

describe('section 3 pacing', () => {
  it('delivers every byte, in order, no sooner than a 9600 baud 8N1 line would', async () => {
    const [analyzer, host] = MemoryTransport.pair();
    const tap = new TappedTransport(analyzer);
    await tap.open();
    await host.open();
    const received: Buffer[] = [];
    host.on('data', (c) => received.push(c));
    tap.pace(9600, 10);
    const bytes = Buffer.from(Array.from({ length: 96 }, (_, i) => 0x30 + (i % 40)));
    const started = performance.now();
    tap.write(bytes.subarray(0, 40));
    tap.write(bytes.subarray(40));
    await waitUntil(() => tap.idle, 5000, 'the paced line to go idle', 5);
    await new Promise((r) => setImmediate(r));
    const elapsed = performance.now() - started;
    assert.deepEqual(Buffer.concat(received), bytes);
    assert.equal(tap.bursts.length, 1, 'a write while the line is busy queues behind it');
    const burst = tap.bursts[0]!;
    assert.equal(burst.bytes, 96);
    assert.ok(Math.abs(burst.ideal - burst.start - 100) < 1e-6, '96 bytes x 10 bits / 9600 baud = 100 ms');
    assert.ok(burst.end >= burst.ideal, 'the last byte never arrives before its time');
    assert.ok(elapsed >= 99, `took ${elapsed} ms`);
    await tap.close();
    await host.close();
  });
});

describe('profile summary', () => {
  it('counts only the samples inside the window', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-prof-test-'));
    try {
      const file = join(dir, 'x.cpuprofile');
      const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0, columnNumber: 0 } });
      writeFileSync(
        file,
        JSON.stringify({
          nodes: [frame(1, '(root)', ''), frame(2, 'decode', 'file:///x/dist/lib/protocols/astm/records/record.js'), frame(3, 'post', 'file:///x/node_modules/axios/index.js'), frame(4, '(idle)', '')],
          startTime: 1000,
          endTime: 1000 + 6000,
          // one sample per ms: 2 ms decode, 2 ms axios, 2 ms idle
          samples: [2, 2, 3, 3, 4, 4],
          timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000],
        }),
      );
      const all = summarizeProfile(file);
      assert.equal(all.busyMs, 4);
      assert.deepEqual(all.areas.map((a) => a.area), ['this package: lib/protocols/astm', 'axios']);
      const w = summarizeProfile(file, { label: 'w', fromUs: 3000, toUs: 5000 });
      assert.equal(w.busyMs, 2);
      assert.deepEqual(w.functions.map((f) => [f.fn, f.ms]), [['decode', 1], ['post', 1]]);
      // A measurement taken in turns: only its spans count.
      const turns = summarizeProfile(file, { label: 't', fromUs: 2000, toUs: 8000, spans: [{ fromUs: 2000, toUs: 3000 }, { fromUs: 5000, toUs: 6000 }] });
      assert.equal(turns.totalMs, 2);
      assert.deepEqual(turns.functions.map((f) => [f.fn, f.ms]), [['decode', 1], ['post', 1]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('in-process sections on tiny sizes', () => {
  it('measure the codec and the link layer and report every figure', () => {
    const report = new Report();
    benchCodec(report, { bytes: 200_000, rounds: 2, compareRounds: 2 }, undefined);
    benchLinkInProcess(report, 2_000);
    const keys = ['codec.decode.MBps', 'codec.decode.msgps', 'codec.encode.MBps', 'codec.encode.msgps', 'codec.std.decode.MBps', 'codec.split.decode.MBps', 'codec.decode.vsSplit', 'codec.encode.vsJoin', 'link.inprocess.p50', 'link.inprocess.p99', 'link.inprocess.max', 'link.bare.p50', 'link.inprocess.vsReference'];
    for (const key of keys) {
      const f = report.get(key);
      assert.ok(f && f.value !== null && Number.isFinite(f.value) && f.value > 0, key);
    }
    const link = report.details.linkInProcess as { all: { n: number }; framesWithoutAck: number; bare: { naks: number } };
    assert.equal(link.all.n, 2_000);
    assert.equal(link.framesWithoutAck, 0, 'every corpus frame is ACKed');
    assert.equal(link.bare.naks, 0, 'and the bare receiver agrees with every checksum');
    assert.match(report.table(), /decode throughput/);
    // Without PYASTM_DIR the python-astm rows say why, and quick mode judges the in-process reference instead.
    assert.match(report.get('codec.decode.vsPyastm')?.note ?? '', /not available: PYASTM_DIR is not set/);
    assert.deepEqual(
      judge(report.figures)
        .map((j) => j.limit.key)
        .filter((k) => k.startsWith('codec.')),
      ['codec.decode.vsSplit', 'codec.encode.vsJoin'],
    );
  });

  it('measure HL7 decoding beside its plain split and judge the ratio', () => {
    const report = new Report();
    benchHl7Codec(report, { bytes: 300_000, rounds: 2 });
    for (const key of ['hl7.decode.MBps', 'hl7.decode.msgps', 'hl7.split.decode.MBps', 'hl7.decode.vsSplit']) {
      const f = report.get(key);
      assert.ok(f && f.value !== null && Number.isFinite(f.value) && f.value > 0, key);
    }
    assert.equal((report.details.hl7Codec as { corpusMessages: number }).corpusMessages, hl7Corpus().length);
    assert.ok(hl7Corpus().length >= 28, 'every HL7 fixture gives at least one message');
    assert.deepEqual(judge(report.figures).map((j) => j.limit.key), ['hl7.decode.vsSplit']);
  });

  it('measure adversarial message shapes beside an ordinary message, HL7 and ASTM, and judge the slowest of each', () => {
    const report = new Report();
    benchAdversarial(report, { messageBytes: 8_000, bytesPerRound: 16_000, rounds: 1 });
    for (const key of ['adversarial.hl7.ordinary.msPerMB', 'adversarial.hl7.worstOverOrdinary', 'adversarial.astm.ordinary.msPerMB', 'adversarial.astm.worstOverOrdinary']) {
      const f = report.get(key);
      assert.ok(f && f.value !== null && Number.isFinite(f.value) && f.value > 0, key);
    }
    assert.match(report.get('adversarial.hl7.worstOverOrdinary')!.note!, /NTE-3 repetitions .*x/);
    assert.deepEqual(judge(report.figures).map((j) => j.limit.key), ['adversarial.hl7.worstOverOrdinary', 'adversarial.astm.worstOverOrdinary']);
  });

  it('say why python-astm is missing when PYASTM_DIR does not hold it', () => {
    const report = new Report();
    const dir = mkdtempSync(join(tmpdir(), 'bench-no-pyastm-'));
    try {
      benchCodec(report, { bytes: 50_000, rounds: 1, compareRounds: 1 }, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.match(report.get('codec.encode.vsPyastm')?.note ?? '', /has no astm\/codec\.py/);
  });

  it('read the fixtures from allotropy with their dialects, and say why allotropy is not beside them', () => {
    const sizes = { oursRounds: 1, roundMs: 1, allotropyRounds: 1, largeRounds: 0, oursAlone: true };
    const quick = new Report();
    benchFilePeer(quick, { ...sizes, oursAlone: false }, undefined, () => undefined);
    // Quick mode without ALLOTROPY_DIR (CI): the one row that says why, nothing timed.
    assert.deepEqual(quick.figures.map((f) => [f.key, f.note]), [['filePeer.vsAllotropy', 'not available: ALLOTROPY_DIR is not set (a checkout of Benchling-Open-Source/allotropy)']]);
    const report = new Report();
    const dir = mkdtempSync(join(tmpdir(), 'bench-no-allotropy-'));
    try {
      benchFilePeer(report, sizes, dir, () => undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const ours = report.figures.filter((f) => f.key.endsWith('.ours.MBps'));
    assert.equal(ours.length, 6);
    for (const f of ours) assert.ok(f.value !== null && f.value > 0 && /results \d+, QC \d+, aside \d+/.test(f.label), f.label);
    assert.match(report.get('filePeer.vsAllotropy')?.note ?? '', /has no src\/allotropy\/to_allotrope\.py/);
    assert.match(report.get('filePeer.large')?.note ?? '', /has no src\/allotropy/);
    assert.deepEqual(judge(report.figures), [], 'no limit judges section 10');
  });
});
