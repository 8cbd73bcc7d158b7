/**
 * The bench's own machinery, in a few seconds: percentiles, the 2x regression
 * rule of quick mode, the UART pacing of section 3, reading a profile inside a
 * window, and the in-process sections on tiny sizes. No assertion depends on
 * how fast this machine is (the full bench is `npm run bench`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryTransport } from '../../lib/sim';
import { regressions, type Baseline } from '../../bench/baseline';
import { benchCodec } from '../../bench/codec';
import { benchLinkInProcess } from '../../bench/link-inprocess';
import { summarizeProfile } from '../../bench/profile';
import { Report, type Figure } from '../../bench/report';
import { percentile, summarize } from '../../bench/stats';
import { TappedTransport } from '../../bench/tap';

const fig = (key: string, value: number, better?: 'higher' | 'lower'): Figure => ({ key, section: 's', label: key, value, unit: 'u', ...(better ? { better } : {}) });

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

describe('quick mode regression rule', () => {
  const baseline: Baseline = {
    machine: {},
    figures: { tput: { value: 100, unit: 'MB/s', better: 'higher' }, lat: { value: 2, unit: 'ms', better: 'lower' } },
  };

  it('fails a figure more than 2x worse than its baseline, in either direction of "better"', () => {
    const { compared, found } = regressions([fig('tput', 49, 'higher'), fig('lat', 4.1, 'lower')], baseline);
    assert.equal(compared, 2);
    assert.deepEqual(found.map((r) => r.figure.key), ['tput', 'lat']);
    assert.ok(Math.abs(found[1]!.factor - 2.05) < 1e-9);
  });

  it('lets through figures up to 2x worse, better ones, ungated ones and ones the baseline lacks', () => {
    const { compared, found } = regressions([fig('tput', 50, 'higher'), fig('lat', 4, 'lower'), fig('lat', 0.1, 'lower'), fig('rss', 1e9), fig('new', 1, 'lower')], baseline);
    assert.equal(compared, 3);
    assert.deepEqual(found, []);
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
    while (!tap.idle) await new Promise((r) => setTimeout(r, 5));
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
          nodes: [frame(1, '(root)', ''), frame(2, 'decode', 'file:///x/dist/lib/astm/records/record.js'), frame(3, 'post', 'file:///x/node_modules/axios/index.js'), frame(4, '(idle)', '')],
          startTime: 1000,
          endTime: 1000 + 6000,
          // one sample per ms: 2 ms decode, 2 ms axios, 2 ms idle
          samples: [2, 2, 3, 3, 4, 4],
          timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000],
        }),
      );
      const all = summarizeProfile(file);
      assert.equal(all.busyMs, 4);
      assert.deepEqual(all.areas.map((a) => a.area), ['this package: lib/astm', 'axios']);
      const w = summarizeProfile(file, { label: 'w', fromUs: 3000, toUs: 5000 });
      assert.equal(w.busyMs, 2);
      assert.deepEqual(w.functions.map((f) => [f.fn, f.ms]), [['decode', 1], ['post', 1]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('in-process sections on tiny sizes', () => {
  it('measure the codec and the link layer and report every figure', () => {
    const report = new Report();
    benchCodec(report, { bytes: 200_000, rounds: 2 }, undefined);
    benchLinkInProcess(report, 2_000);
    for (const key of ['codec.decode.MBps', 'codec.decode.msgps', 'codec.encode.MBps', 'codec.encode.msgps', 'link.inprocess.p50', 'link.inprocess.p99', 'link.inprocess.max']) {
      const f = report.get(key);
      assert.ok(f && f.value !== null && Number.isFinite(f.value) && f.value > 0, key);
    }
    const link = report.details.linkInProcess as { all: { n: number }; framesWithoutAck: number };
    assert.equal(link.all.n, 2_000);
    assert.equal(link.framesWithoutAck, 0, 'every corpus frame is ACKed');
    assert.match(report.table(), /decode throughput/);
  });
});
