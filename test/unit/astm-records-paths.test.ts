/**
 * The codec's shortcuts held to the rules they stand in for: the decoder
 * builds records with a line per field (build.ts) and decides about
 * `verbatim` without encoding the record; the encoder writes records whose
 * properties come in layout order as bytes (writer.ts) and leaves every other
 * record to its general path; long values are searched with indexOf. Each
 * shortcut must give what the general rule gives, errors included.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  AstmDecodeError,
  AstmEncodeError,
  AstmDelimiterError,
  COMMENT_FIELDS,
  DEFAULT_DELIMITERS,
  HEADER_FIELDS,
  ORDER_FIELDS,
  PATIENT_FIELDS,
  QUERY_FIELDS,
  RESULT_FIELDS,
  TERMINATOR_FIELDS,
  decodeMessage,
  decodeRecord,
  encodeMessage,
  encodeRecord,
  type AstmMessage,
  type AstmRecord,
  type Delimiters,
} from '../../lib/protocols/astm/records';
import { fixtureMessages, loadAllFixtures } from '../support/fixtures';
import { prng } from '../support/seeded';

const D = DEFAULT_DELIMITERS;


/** Field texts that exercise escapes (allowed, kept and lone), components, repeats and long data. */
const FIELD_TEXTS = ['', '1', '^^^GLU', 'a&F&b', 'R&D', '&X0D&', '&H&bold&N&', 'a\\b', 'a^b\\c^d', '&', '&E&', 'x&S&', '&Zlocal&', '&&', 'a&b&R&c', 'x'.repeat(100), `${'y'.repeat(70)}^${'z'.repeat(80)}`, `Q&X41&${'w'.repeat(90)}`, `${'v'.repeat(80)}&`];

function records(seed: number, count: number): string[] {
  const r = prng(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    let text = r.pick(['P', 'O', 'R', 'C', 'Q', 'L', 'M', 'S']);
    for (let k = r.int(36); k > 0; k--) text += `|${r.pick(FIELD_TEXTS)}`;
    out.push(text);
  }
  return out;
}

function fixtureRecords(): Array<{ text: string; d: Delimiters }> {
  const out: Array<{ text: string; d: Delimiters }> = [];
  for (const f of loadAllFixtures()) {
    for (const message of fixtureMessages(f)) {
      const d = decodeMessage(message).delimiters;
      for (const text of message.split('\r').slice(1)) if (text !== '') out.push({ text, d });
    }
  }
  return out;
}

describe('decoded records', () => {
  const layouts: Array<[string, readonly string[]]> = [
    ['P', PATIENT_FIELDS],
    ['O', ORDER_FIELDS],
    ['R', RESULT_FIELDS],
    ['C', COMMENT_FIELDS],
    ['Q', QUERY_FIELDS],
    ['L', TERMINATOR_FIELDS],
  ];

  it('have their properties in the order of fields.ts, each with its own field', () => {
    for (const [type, names] of layouts) {
      const record = decodeRecord([type, ...names.map((_, i) => `v${i}`), 'past'].join('|'), D) as unknown as Record<string, unknown>;
      assert.deepEqual(Object.keys(record), ['type', ...names, 'extra'], type);
      names.forEach((name, i) => assert.equal(record[name], `v${i}`, `${type} ${name}`));
      assert.deepEqual(record.extra, ['past'], type);
    }
    const header = decodeRecord(['H', '\\^&', ...HEADER_FIELDS.map((_, i) => `v${i}`), 'past'].join('|')) as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(header), ['type', 'delimiters', ...HEADER_FIELDS, 'extra']);
    HEADER_FIELDS.forEach((name, i) => assert.equal(header[name], `v${i}`, `H ${name}`));
  });

  it('have exactly the fields the text has, for every count', () => {
    for (const [type, names] of layouts) {
      for (let n = 0; n <= names.length; n++) {
        const record = decodeRecord([type, ...names.slice(0, n).map(() => 'x')].join('|'), D);
        assert.deepEqual(Object.keys(record), ['type', ...names.slice(0, n)], `${type} with ${n} fields`);
      }
    }
  });

  it('keep a verbatim text exactly when the encoder would write another text', () => {
    const cases = [...fixtureRecords(), ...records(0x7e57, 3000).map((text) => ({ text, d: D }))];
    let kept = 0;
    for (const { text, d } of cases) {
      const record = decodeRecord(text, d);
      if (record.type === 'raw') continue;
      const { verbatim, ...named } = record;
      const canonical = encodeRecord(named as AstmRecord, d);
      assert.equal(verbatim !== undefined, canonical !== text, JSON.stringify(text));
      if (verbatim !== undefined) {
        assert.equal(verbatim, text);
        kept++;
      }
      assert.equal(encodeRecord(record, d), text, 'and the record is written back as it came');
    }
    assert.ok(kept > 100, `only ${kept} texts needed a verbatim copy: the cases miss the point`);
  });

  it('name the record and field of the first restricted character of a message, after whatever else is wrong before it', () => {
    const long = 'x'.repeat(300);
    assert.throws(() => decodeMessage(`H|\\^&\rR|1|${long}|a\x03b\rL|1\r`), (e: unknown) => e instanceof AstmDecodeError && e.record === 2 && e.field === 4 && /<ETX>/.test(e.message));
    assert.throws(() => decodeMessage(`H|\\^&\rR|1|${long}\x17|b\r`), (e: unknown) => e instanceof AstmDecodeError && e.record === 2 && e.field === 3 && /<ETB>/.test(e.message));
    assert.throws(() => decodeMessage('H|\\^&\rH|\\\\^&|\rR|1|\x03\r'), (e: unknown) => e instanceof AstmDelimiterError && e.record === 2);
    assert.throws(() => decodeMessage('H|\\^&|a\x02\r'), (e: unknown) => e instanceof AstmDecodeError && e.record === 1 && e.field === 3);
  });

  it('split long data on every delimiter and resolve its escapes', () => {
    const a = 'a'.repeat(200);
    const b = 'b'.repeat(150);
    const r = decodeRecord(`R|1|${a}^${b}\\${a}&S&${b}|${a}`, D) as unknown as Record<string, unknown>;
    assert.deepEqual(r.universalTestId, [
      [a, b],
      [`${a}^${b}`],
    ]);
    assert.equal(r.value, a);
    assert.deepEqual(decodeRecord(`M|1|${a}|${b}^`, D), { type: 'M', sequence: '1', fields: [a, [b, '']] });
  });
});

describe('encoded records', () => {
  it('are the same text whichever order their properties come in, and whatever object holds them', () => {
    for (const { text, d } of fixtureRecords()) {
      const record = decodeRecord(text, d);
      const reversed = Object.fromEntries(Object.entries(record).reverse()) as AstmRecord;
      const inherited = Object.assign(Object.create({ unrelated: true }) as object, record) as AstmRecord;
      assert.equal(encodeRecord(reversed, d), text);
      assert.equal(encodeRecord(inherited, d), text);
    }
  });

  it('fail with the same error whichever path writes them', () => {
    const at = (record: unknown) => () => encodeMessage({ delimiters: D, records: [{ type: 'H', delimiters: D }, record] } as AstmMessage);
    // An unknown property is named before any bad value, as checkShape always did.
    assert.throws(at({ type: 'R', sequence: 'a\rb', specimenID: 'x' }), (e: unknown) => e instanceof AstmEncodeError && e.record === 2 && /no field "specimenID"/.test(e.message));
    assert.throws(at({ type: 'R', sequence: '1', value: `${'x'.repeat(100)}\x03` }), (e: unknown) => e instanceof AstmEncodeError && e.record === 2 && e.field === 4 && /<ETX>/.test(e.message));
    assert.throws(at({ type: 'O', sequence: '1', universalTestId: [['', 'GLU'], 'CRE'] }), (e: unknown) => e instanceof AstmEncodeError && e.field === 5 && /non-empty arrays/.test(e.message));
    assert.throws(at({ type: 'M', sequence: '1', fields: 'x' }), /fields as an array/);
    assert.throws(() => encodeMessage({ delimiters: D, records: [{ type: 'H', delimiters: { ...D, escape: '^' } }] }), AstmDelimiterError);
  });

  it('keep characters from U+0100 on, in values and as delimiters', () => {
    for (const text of ['H|\\^&\rP|1||Łukasz^Müller||Ω\rR|1|^^^X|5|µmol/L\rL|1|N\r', 'H☃\\^&☃☃x\rR☃1☃^^^X☃a\\b&☃&\rL☃1\r']) {
      const message = decodeMessage(text);
      assert.equal(encodeMessage(message), text);
      assert.deepEqual(decodeMessage(encodeMessage(message)), message);
    }
    const built: AstmMessage = { delimiters: D, records: [{ type: 'H', delimiters: D }, { type: 'C', sequence: '1', source: 'L', text: 'Zürich ☃ R&D' }] };
    assert.equal(encodeMessage(built), 'H|\\^&\rC|1|L|Zürich ☃ R&E&D\r');
  });

  it('escape long data like short', () => {
    const a = 'a'.repeat(200);
    assert.equal(encodeRecord({ type: 'C', sequence: '1', text: `${a}|${a}&` }, D), `C|1||${a}&F&${a}&E&`);
    assert.equal(encodeRecord({ type: 'M', sequence: '1', fields: [[a, `x^${a}`]] }, D), `M|1|${a}^x&S&${a}`);
  });

  it('round-trip every generated record, and messages of them', () => {
    const texts = records(0x5eed, 2000);
    for (const text of texts) assert.equal(encodeRecord(decodeRecord(text, D), D), text);
    for (let i = 0; i + 10 <= texts.length; i += 10) {
      const text = `H|\\^&\r${texts.slice(i, i + 10).join('\r')}\r`;
      assert.equal(encodeMessage(decodeMessage(text)), text);
    }
  });
});
