/**
 * Section 2, in process: the host side of the link (AstmLink in the computer
 * role, driven by LinkDriver exactly as the astm-link node drives it) receives
 * the fixture corpus as an analyzer frames it (ENQ, frames of 240 characters,
 * EOT). Each frame is handed over in one read, as a TCP read would bring it;
 * the time runs from that call (its last byte is in it) to the moment the
 * driver carries out the ACK write, with process.hrtime.
 */
import { ACK, ENQ, EOT } from '../lib/astm/control';
import { AstmLink, buildFrames } from '../lib/astm/link';
import { LinkDriver } from '../lib/astm/link-driver';
import { corpus } from './codec';
import type { Report } from './report';
import { median, summarize } from './stats';

const ROUNDS = 5;

export function benchLinkInProcess(report: Report, frames: number): void {
  const sessions = corpus().map((text) => buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 240 }));
  let ackAt = 0n;
  let delivered = 0;
  const driver = new LinkDriver(new AstmLink({ messageIdPrefix: 'bench' }), (action) => {
    if (action.type === 'write' && action.bytes.length === 1 && action.bytes[0] === ACK) ackAt = process.hrtime.bigint();
    else if (action.type === 'message') delivered++;
  });
  const enq = Buffer.of(ENQ);
  const eot = Buffer.of(EOT);
  const latencies = new Float64Array(frames);
  let measured = 0;
  let warm = Math.min(20_000, frames);
  let naks = 0;
  const run = () => {
    for (const session of sessions) {
      driver.receive(enq);
      for (const frame of session) {
        ackAt = 0n;
        const t0 = process.hrtime.bigint();
        driver.receive(frame);
        if (ackAt === 0n) {
          naks++;
          continue;
        }
        if (warm > 0) warm--;
        else if (measured < frames) latencies[measured++] = Number(ackAt - t0) / 1e6;
      }
      driver.receive(eot);
      if (measured >= frames) return;
    }
  };
  while (measured < frames) run();
  driver.close();
  // Five consecutive rounds of the measured frames: the median round's p50 and p99
  // are reported (one stray GC or preemption moves one round, not the figure).
  const perRound = Math.floor(measured / ROUNDS);
  const rounds = Array.from({ length: ROUNDS }, (_, r) => summarize(latencies.subarray(r * perRound, (r + 1) * perRound)));
  const s = summarize(latencies.subarray(0, measured));
  const p50 = median(rounds.map((r) => r.p50));
  const p99 = median(rounds.map((r) => r.p99));
  const section = '2 link layer';
  report.add({ key: 'link.inprocess.p50', section, label: 'frame -> ACK, in process (AstmLink+LinkDriver), p50', value: p50, unit: 'ms', better: 'lower', note: `${s.n} frames` });
  report.add({ key: 'link.inprocess.p99', section, label: 'frame -> ACK, in process, p99', value: p99, unit: 'ms', better: 'lower' });
  report.add({ key: 'link.inprocess.max', section, label: 'frame -> ACK, in process, max', value: s.max, unit: 'ms' });
  report.detail('linkInProcess', { all: s, rounds, framesPerSessionAvg: sessions.reduce((n, f) => n + f.length, 0) / sessions.length, messagesDelivered: delivered, framesWithoutAck: naks });
}
