/**
 * Section 2, in process: the host side of the link (AstmLink in the computer
 * role, driven by LinkDriver exactly as the astm-link node drives it) receives
 * the fixture corpus as an analyzer frames it (ENQ, frames of 240 characters,
 * EOT). Each frame is handed over in one read, as a TCP read would bring it;
 * the time runs from that call (its last byte is in it) to the moment the
 * driver carries out the ACK write, with process.hrtime.
 *
 * Beside it, timed the same way over the same frames, a bare receiver
 * (bareReceive below): checksum, keep the text, answer ACK, the least a host
 * does with a frame. Their ratio is what quick mode judges (bench/limits.ts):
 * it moves with the link layer's code, hardly with the CPU.
 */
import { ACK, ENQ, EOT, NAK } from '../lib/protocols/astm/control';
import { AstmLink, buildFrames } from '../lib/protocols/astm/link';
import { LinkDriver } from '../lib/link/driver';
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
  const bare = bareRounds(sessions, Math.min(frames, 20_000));
  const section = '2 link layer';
  report.add({ key: 'link.inprocess.p50', section, label: 'frame -> ACK, in process (AstmLink+LinkDriver), p50', value: p50, unit: 'ms', note: `${s.n} frames` });
  report.add({ key: 'link.inprocess.p99', section, label: 'frame -> ACK, in process, p99', value: p99, unit: 'ms' });
  report.add({ key: 'link.inprocess.max', section, label: 'frame -> ACK, in process, max', value: s.max, unit: 'ms' });
  report.add({ key: 'link.bare.p50', section, label: 'frame -> ACK, bare receiver (checksum, keep text), p50', value: bare.p50, unit: 'ms', note: `${bare.frames} frames` });
  report.add({ key: 'link.inprocess.vsReference', section, label: 'frame -> ACK, AstmLink+LinkDriver / bare receiver, p50', value: p50 / bare.p50, unit: 'x' });
  report.detail('linkInProcess', { all: s, rounds, bare, framesPerSessionAvg: sessions.reduce((n, f) => n + f.length, 0) / sessions.length, messagesDelivered: delivered, framesWithoutAck: naks });
}

const HEX = '0123456789ABCDEF';

/**
 * What a host must do with a frame at the least: add up the checksum, compare
 * it, keep the text, answer ACK (NAK for a bad checksum). No frame numbers,
 * time-outs, state or message assembly, which AstmLink adds.
 */
function bareReceive(frame: Buffer, texts: Buffer[]): number {
  // STX FN text ETX|ETB C1 C2 CR LF: the checksum covers FN through ETX|ETB.
  const end = frame.length - 5;
  let sum = 0;
  for (let i = 1; i <= end; i++) sum = (sum + frame[i]!) & 0xff;
  if (frame[end + 1] !== HEX.charCodeAt(sum >> 4) || frame[end + 2] !== HEX.charCodeAt(sum & 0x0f)) return NAK;
  texts.push(frame.subarray(2, end));
  return ACK;
}

/** bareReceive over the corpus frames, timed per frame as the link is; the median round's p50. */
function bareRounds(sessions: Buffer[][], frames: number): { p50: number; frames: number; naks: number } {
  const latencies = new Float64Array(frames);
  let texts: Buffer[] = [];
  let measured = 0;
  let warm = frames;
  let naks = 0;
  while (measured < frames) {
    for (const session of sessions) {
      for (const frame of session) {
        const t0 = process.hrtime.bigint();
        const answer = bareReceive(frame, texts);
        const t1 = process.hrtime.bigint();
        if (answer !== ACK) naks++;
        if (warm > 0) warm--;
        else if (measured < frames) latencies[measured++] = Number(t1 - t0) / 1e6;
      }
      // A message's texts are handed on at its end, as the link does; here they are dropped.
      texts = [];
      if (measured >= frames) break;
    }
  }
  const perRound = Math.floor(measured / ROUNDS);
  const p50 = median(Array.from({ length: ROUNDS }, (_, r) => summarize(latencies.subarray(r * perRound, (r + 1) * perRound)).p50));
  return { p50, frames: measured, naks };
}
