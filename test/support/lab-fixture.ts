/**
 * A fixture's messages decoded, and the one results event a dialect makes of
 * a message: what the per-dialect tests (test/unit/astm-lab-<dialect>.test.ts)
 * start from.
 */
import assert from 'node:assert/strict';
import { decodeMessage, splitMessages, type AstmMessage } from '../../lib/protocols/astm/records';
import type { DialectProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents, type LabEvent } from '../../lib/protocols/astm/lab';
import { fixtureText, loadFixture } from './fixtures';

/** The fixture's messages; `text` turns the record text into what the profile's charset reads (default: as is). */
export function fixtureMessagesDecoded(name: string, text: (latin1: string) => string = (t) => t): AstmMessage[] {
  return splitMessages(text(fixtureText(loadFixture(name)))).map((m) => decodeMessage(m));
}

/** The fixture's one message (a fixture holding several fails here). */
export function onlyMessage(name: string, text?: (latin1: string) => string): AstmMessage {
  const messages = fixtureMessagesDecoded(name, text);
  assert.equal(messages.length, 1, `${name}: one message`);
  return messages[0]!;
}

/** The events of a message that must give exactly one results event, and that event. */
export function onlyResults(message: AstmMessage, profile: DialectProfile, timeZone: string): Extract<LabEvent, { type: 'results' }> {
  const events = toLabEvents(message, profile, { timeZone });
  assert.deepEqual(events.map((e) => e.type), ['results']);
  const [ev] = events;
  assert.ok(ev?.type === 'results');
  return ev;
}
