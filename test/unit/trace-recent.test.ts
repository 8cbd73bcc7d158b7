/**
 * The dialect editor's "recent messages" (lib/trace/recent): read back from a
 * link's trace, each message with its own time (when its H record came, not
 * the trace's first line) and a summary that tells it from the others (its
 * samples, its first result), latest last across interleaved sessions.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACK, ENQ, EOT } from '../../lib/protocols/astm/control';
import { buildFrames } from '../../lib/protocols/astm/link';
import { FrameTrace } from '../../lib/trace';
import { recentMessages } from '../../lib/trace/recent';
import { E1381_TRACE } from '../../lib/protocols/astm';
import { ASTM_RECENT, summarize } from '../../lib/protocols/astm/recent';

const T0 = Date.parse('2026-11-21T09:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

const result = (sample: string, tests: Array<[string, string]>) =>
  `H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121090000\rP|1||P-${sample}\rO|1|${sample}||^^^GLU|R\r` +
  tests.map(([code, value], i) => `R|${i + 1}|^^^${code}|${value}|mmol/L|3.9-6.1|N||F\r`).join('') +
  'L|1|N\r';
const query = (sample: string) => `H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2\rQ|1|^${sample}||ALL||||||||O\rL|1|N\r`;

async function traceOf(t: TestContext, write: (send: (session: string, atMs: number, ...messages: string[]) => void) => void): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lis-recent-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  let now = T0;
  const trace = new FrameTrace({ dir, name: 'link', framing: E1381_TRACE, now: () => new Date(now) });
  // One transfer: ENQ, then each message's frames 10 ms apart (its H frame 10 ms after the transfer's start, the next message 500 ms later), EOT.
  write((session, atMs, ...messages) => {
    now = T0 + atMs;
    trace.record('in', Buffer.of(ENQ), session);
    trace.record('out', Buffer.of(ACK), session);
    messages.forEach((m, i) => {
      now = T0 + atMs + 500 * i;
      for (const frame of buildFrames(Buffer.from(m, 'latin1'), { framePerRecord: true })) {
        now += 10;
        trace.record('in', frame, session);
        trace.record('out', Buffer.of(ACK), session);
      }
    });
    now += 10;
    trace.record('in', Buffer.of(EOT), session);
  });
  await trace.close();
  return trace.file;
}

describe('recent messages from a trace', () => {
  it('gives each message its own time and what tells it apart, latest last across sessions', async (t) => {
    const file = await traceOf(t, (send) => {
      send('s1', 0, result('S-1', [['GLU', '5.4']]));
      send('s2', 1000, query('S-2'));
      send('s1', 2000, result('S-3', [['GLU', '7.1'], ['CREA', '88']]));
      // Two messages in one transfer.
      send('s2', 3000, result('S-4', [['GLU', '4.0']]), result('S-5', [['GLU', '6.6']]));
    });
    const recent = await recentMessages(file, 10, ASTM_RECENT);
    assert.deepEqual(recent.problems, []);
    assert.deepEqual(
      recent.messages.map((m) => [m.at, m.session, m.summary.samples.join(','), m.summary.firstResult ?? null, m.summary.results, m.summary.queries]),
      [
        [at(10), 's1', 'S-1', 'GLU 5.4 mmol/L', 1, 0],
        [at(1010), 's2', 'S-2', null, 0, 1],
        [at(2010), 's1', 'S-3', 'GLU 7.1 mmol/L', 2, 0],
        [at(3010), 's2', 'S-4', 'GLU 4.0 mmol/L', 1, 0],
        [at(3510), 's2', 'S-5', 'GLU 6.6 mmol/L', 1, 0],
      ],
    );
    const last2 = await recentMessages(file, 2, ASTM_RECENT);
    assert.deepEqual(last2.messages.map((m) => m.summary.samples[0]), ['S-4', 'S-5'], 'the latest, whatever their session');
  });

  it('summarizes with the delimiters the H record declares, sample IDs without their empty components', () => {
    // O-3 empty: O-4; R-3 with the code in its 5th component and a dilution after it (as Sysmex writes it).
    const s = summarize(Buffer.from('H!@#&\rO!1!!S-9#x#3!#GLU\rR!1!####WBC#1!5.4!10*3/uL\rQ!2!#S-10@#S-11\rL!1\r', 'latin1'));
    assert.deepEqual(s, { samples: ['S-9#x#3', 'S-10', 'S-11'], results: 1, queries: 1, firstResult: 'WBC 5.4 10*3/uL' });
    assert.deepEqual(summarize(Buffer.from('H|\\^&\rO|1|11625^CL-PL-24-0370         ^1^^004|R1|^^^685/\rQ|1|^S-8^^^||ALL\rL|1\r', 'latin1')).samples, ['11625^CL-PL-24-0370^1^004', 'S-8']);
  });
});
