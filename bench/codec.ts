/**
 * Section 1: the E1394 record codec (decodeMessage / encodeMessage) over the
 * fixture corpus, i.e. every message of every capture in test/fixtures/astm,
 * repeated until the requested volume has gone through. The volume is split
 * into rounds; the median round is reported, the total is at least `bytes`.
 */
import { decodeMessage, encodeMessage, type AstmMessage } from '../lib/astm/records';
import { fixtureMessages, loadAllFixtures } from '../test/support/fixtures';
import type { Report } from './report';
import { median } from './stats';

export interface CodecSizes {
  /** Bytes of message text per direction, in all rounds together. */
  bytes: number;
  rounds: number;
}

interface RoundResult {
  bytes: number;
  messages: number;
  seconds: number;
}

export function corpus(): string[] {
  return loadAllFixtures().flatMap((f) => fixtureMessages(f));
}

/** Runs `one` over the corpus, in corpus order and round and round, until `bytes` went through. */
function round(texts: string[], bytes: number, one: (i: number) => number): RoundResult {
  let done = 0;
  let messages = 0;
  const started = process.hrtime.bigint();
  while (done < bytes) {
    for (let i = 0; i < texts.length && done < bytes; i++) {
      done += one(i);
      messages++;
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { bytes: done, messages, seconds };
}

export function benchCodec(report: Report, sizes: CodecSizes): void {
  const texts = corpus();
  const decoded: AstmMessage[] = texts.map((t) => decodeMessage(t));
  const corpusBytes = texts.reduce((n, t) => n + t.length, 0);
  // Results go into `sink` so no call can be optimised away.
  let sink = 0;
  const decodeOne = (i: number): number => {
    const text = texts[i]!;
    sink += decodeMessage(text).records.length;
    return text.length;
  };
  const encodeOne = (i: number): number => {
    const text = encodeMessage(decoded[i]!);
    sink += text.length & 1;
    return text.length;
  };
  // Warm-up: the optimising compiler settles before anything is timed.
  round(texts, Math.min(2e6, sizes.bytes / 5), decodeOne);
  round(texts, Math.min(2e6, sizes.bytes / 5), encodeOne);

  const perRound = sizes.bytes / sizes.rounds;
  const results: Record<'decode' | 'encode', RoundResult[]> = { decode: [], encode: [] };
  for (let r = 0; r < sizes.rounds; r++) {
    results.decode.push(round(texts, perRound, decodeOne));
    results.encode.push(round(texts, perRound, encodeOne));
  }
  for (const dir of ['decode', 'encode'] as const) {
    const rs = results[dir];
    const total = rs.reduce((n, r) => n + r.bytes, 0);
    report.add({ key: `codec.${dir}.MBps`, section: '1 record codec', label: `${dir} throughput`, value: median(rs.map((r) => r.bytes / 1e6 / r.seconds)), unit: 'MB/s', better: 'higher', note: `${(total / 1e6).toFixed(1)} MB` });
    report.add({ key: `codec.${dir}.msgps`, section: '1 record codec', label: `${dir} messages`, value: median(rs.map((r) => r.messages / r.seconds)), unit: 'msg/s', better: 'higher' });
  }
  report.detail('codec', {
    corpusMessages: texts.length,
    corpusBytes,
    megabytesPerDirection: results.decode.reduce((n, r) => n + r.bytes, 0) / 1e6,
    rounds: results,
    sink,
  });
}
