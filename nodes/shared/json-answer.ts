/**
 * An answer of megabytes of JSON (a file's preview: every result of it) sent
 * a slice at a time: res.json would stringify it in one go and hold the
 * event loop for as long.
 */
import type { Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { jsonPieces, sliceEnd } from '../../lib/util';

/** Text gathered before a write: few writes, each small. */
const WRITE_AT = 64 * 1024;

export async function sendJsonInSlices(res: Response, value: unknown): Promise<void> {
  res.status(200).type('application/json');
  let text = '';
  // What is left of the slice the answer's parse ran in, when it ran in this turn.
  let until = sliceEnd();
  let n = 0;
  for (const piece of jsonPieces(value)) {
    text += piece;
    if (text.length >= WRITE_AT) {
      res.write(text);
      text = '';
    }
    if (++n % 64 === 0 && performance.now() >= until) {
      await nextTurn();
      until = sliceEnd();
    }
  }
  res.end(text);
}
