/**
 * The record codec on hand-written input: delimiters, escapes, the lossless
 * record layout, message framing by CR, and what the encoder refuses.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  AstmDecodeError,
  AstmDelimiterError,
  AstmEncodeError,
  AstmRecordError,
  DEFAULT_DELIMITERS,
  checkDelimiters,
  component,
  decodeMessage,
  decodeRecord,
  decodeValue,
  encodeMessage,
  encodeRecord,
  encodeValue,
  escapeText,
  readHeaderDelimiters,
  repeatsOf,
  splitMessages,
  unescapeText,
  type AstmMessage,
  type AstmRecord,
  type Delimiters,
  type OrderRecord,
  type ResultRecord,
} from '../../lib/protocols/astm/records';

const D = DEFAULT_DELIMITERS;
const GENEXPERT: Delimiters = { field: '|', repeat: '@', component: '^', escape: '\\' };
const ERBA: Delimiters = { field: '|', repeat: '`', component: '^', escape: '&' };

function roundTrip(text: string): AstmMessage {
  const message = decodeMessage(text);
  assert.equal(encodeMessage(message), text);
  assert.deepEqual(decodeMessage(encodeMessage(message)), message);
  return message;
}

describe('delimiters', () => {
  it('reads them from the H record', () => {
    assert.deepEqual(readHeaderDelimiters('H|\\^&|||x'), D);
    assert.deepEqual(readHeaderDelimiters('H|@^\\|URM'), GENEXPERT);
    assert.deepEqual(readHeaderDelimiters('H|`^&||||'), ERBA);
    assert.deepEqual(readHeaderDelimiters('H|\\^&'), D, 'an H with nothing after the delimiters');
    assert.deepEqual(readHeaderDelimiters('H!~$%!!x'), { field: '!', repeat: '~', component: '$', escape: '%' });
  });

  it('uses the H record\'s delimiters, never the ones passed in, once an H is there', () => {
    const m = decodeMessage('H|@^\\\rR|1|^^^A@^^^B|x\\S\\y\rL|1|N\r', { delimiters: D });
    const r = m.records[1] as ResultRecord;
    assert.deepEqual(r.universalTestId, [['', '', '', 'A'], ['', '', '', 'B']]);
    assert.equal(r.value, 'x^y');
    assert.deepEqual(m.delimiters, GENEXPERT);
  });

  it('switches delimiters at each H of a text holding several messages', () => {
    const text = 'H|\\^&\rR|1|^^^X|a\\b\rL|1|N\rH|`^&\rR|1|^^^X|a\\b`c\rL|1|N\r';
    const m = roundTrip(text);
    assert.deepEqual((m.records[1] as ResultRecord).value, [['a'], ['b']]);
    assert.deepEqual((m.records[4] as ResultRecord).value, [['a\\b'], ['c']]);
    assert.deepEqual(splitMessages(text), ['H|\\^&\rR|1|^^^X|a\\b\rL|1|N\r', 'H|`^&\rR|1|^^^X|a\\b`c\rL|1|N\r']);
  });

  it('refuses a doubled backslash, a long definition and repeated characters, naming the H record', () => {
    assert.throws(() => decodeMessage('H|\\\\^&|||x\rL|1\r'), (e: unknown) => e instanceof AstmDelimiterError && e.record === 1 && e.field === 2 && /doubled/.test(e.message));
    // The same log artefact on a header that declares no escape character.
    assert.throws(() => readHeaderDelimiters('H|\\\\^|x'), /doubled/);
    assert.throws(() => readHeaderDelimiters('H|\\^&#|x'), /at most 3 characters/);
    assert.throws(() => readHeaderDelimiters('H|\\^^|x'), /different characters/);
    assert.throws(() => readHeaderDelimiters('H|\\^a|x'), /letter, digit, space or control/);
    assert.throws(() => checkDelimiters({ field: '|', repeat: '\\', component: '^' }), /escape delimiter must be one character/);
  });

  it('reads an H that declares no escape character with the delimiters it declares', () => {
    // The DPC/Siemens IMMULITE example (siemens-immulite-result.txt) opens with `H|\^|`.
    const declared: Delimiters = { field: '|', repeat: '\\', component: '^', escape: '' };
    assert.deepEqual(readHeaderDelimiters('H|\\^||PASSWORD|DPC'), declared);
    assert.deepEqual(readHeaderDelimiters('H|\\|x'), { field: '|', repeat: '\\', component: '', escape: '' });
    const text = 'H|\\^||PASSWORD|DPC\rO|1|130000445||^^^TT4\rR|1|^^^TT4|10.3|ug/dL|4.5\\.4^12.5\\24|N|N|F||R&D\rL|1\r';
    const m = roundTrip(text);
    assert.deepEqual(m.delimiters, declared);
    const r = m.records[2] as ResultRecord;
    assert.deepEqual(r.referenceRange, [['4.5'], ['.4', '12.5'], ['24']]);
    // No escape character: `&` is data, not the start of an escape sequence.
    assert.equal(r.operatorId, 'R&D');
  });

  it('reads a backslash as plain text when the H declares neither it nor an escape character', () => {
    // `H|~^|`: repeat `~`, component `^`, nothing else. A backslash is then no
    // delimiter, and `&E&` no escape sequence: both are the text as sent.
    assert.deepEqual(readHeaderDelimiters('H|~^||x'), { field: '|', repeat: '~', component: '^', escape: '' });
    const text = 'H|~^|||DPC\rC|1|I|C:\\runs\\0119 &E& done|G\rR|1|^^^TT4|10.3\\2|ug/dL|4.5~12.5||N||F\rL|1\r';
    const m = roundTrip(text);
    assert.equal((m.records[1] as AstmRecord & { type: 'C' }).text, 'C:\\runs\\0119 &E& done');
    const r = m.records[2] as ResultRecord;
    assert.equal(r.value, '10.3\\2');
    assert.deepEqual(r.referenceRange, [['4.5'], ['12.5']]);
    assert.deepEqual(r.universalTestId, ['', '', '', 'TT4']);
  });

  it('reads an H that declares its field delimiter alone: every field one plain value', () => {
    assert.deepEqual(readHeaderDelimiters('H||x'), { field: '|', repeat: '', component: '', escape: '' });
    assert.deepEqual(readHeaderDelimiters('H|'), { field: '|', repeat: '', component: '', escape: '' });
    const m = roundTrip('H||||LIAISON\rO|1|S-1||^^^TSH\rR|1|^^^TSH|1.2\\3&F&|mIU/L\rL|1|N\r');
    assert.equal((m.records[0] as AstmRecord & { type: 'H' }).senderId, 'LIAISON');
    const o = m.records[1] as OrderRecord;
    assert.equal(o.universalTestId, '^^^TSH', 'no component delimiter declared: the field is one value');
    assert.equal((m.records[2] as ResultRecord).value, '1.2\\3&F&');
  });

  it('writes such a message back only where no escape would be needed', () => {
    const m = decodeMessage('H|\\^||x\rC|1|I|note|G\rL|1\r');
    const c = m.records[1] as AstmRecord & { type: 'C' };
    c.text = 'a|b';
    delete c.verbatim;
    assert.throws(() => encodeMessage(m), (e: unknown) => e instanceof AstmEncodeError && /declares no escape character/.test(e.message));
    const one = decodeMessage('H|\\|x\rC|1|I|note|G\rL|1\r');
    const c1 = one.records[1] as AstmRecord & { type: 'C' };
    c1.text = ['a', 'b'];
    delete c1.verbatim;
    assert.throws(() => encodeMessage(one), /declares no component delimiter/);
    // Our own downloads always declare all four.
    assert.throws(() => checkDelimiters({ field: '|', repeat: '\\', component: '^', escape: '' }), /escape delimiter must be one character/);
  });

  it('needs an H record or delimiters given explicitly', () => {
    assert.throws(() => decodeMessage('R|1|^^^GLU|5.2\r'), (e: unknown) => e instanceof AstmDecodeError && e.record === 1 && /no delimiters were given/.test(e.message));
    const fragment = decodeMessage('R|1|^^^GLU|5.2|mmol/L\rR|2|^^^NA|140\r', { delimiters: D });
    assert.deepEqual(fragment.delimiters, D);
    assert.equal((fragment.records[0] as ResultRecord).units, 'mmol/L');
    assert.equal(encodeMessage(fragment), 'R|1|^^^GLU|5.2|mmol/L\rR|2|^^^NA|140\r');
  });

  it('does not take a manufacturer record type that starts with H for a header', () => {
    const m = roundTrip('H|\\^&\rHX|1|vendor data\rL|1|N\r');
    assert.deepEqual(m.records[1], { type: 'raw', text: 'HX|1|vendor data' });
  });
});

describe('escapes', () => {
  it('resolves &F& &S& &R& &E& with the message\'s escape character', () => {
    assert.equal(unescapeText('a&F&b&S&c&R&d&E&e', D), 'a|b^c\\d&e');
    assert.equal(escapeText('a|b^c\\d&e', D), 'a&F&b&S&c&R&d&E&e');
    assert.equal(unescapeText('a\\S\\b\\E\\c', GENEXPERT), 'a^b\\c');
    assert.equal(escapeText('a^b\\c@d', GENEXPERT), 'a\\S\\b\\E\\c\\R\\d');
    assert.equal(escapeText('x`y', ERBA), 'x&R&y');
  });

  it('turns the Sysmex image path back into a path', () => {
    const record = 'R|38|^^^^SCAT_WDF|PNG&R&20240628&R&2024_06_27_13_54_27_WDF.PNG|||N||F||||20240627135407';
    const r = decodeRecord(record, D) as ResultRecord;
    assert.equal(r.value, 'PNG\\20240628\\2024_06_27_13_54_27_WDF.PNG');
    assert.equal(encodeRecord(r, D), record);
  });

  it('splits on delimiters before resolving escapes', () => {
    const r = decodeRecord('R|1|^^^A|1&S&2^3', D) as ResultRecord;
    assert.deepEqual(r.value, ['1^2', '3']);
    assert.equal(encodeRecord(r, D), 'R|1|^^^A|1&S&2^3');
  });

  it('keeps hex, local and highlighting sequences verbatim, both ways', () => {
    for (const text of ['&X0D0A&', 'a&H&bold&N&b', '&Zlocal stuff&']) {
      assert.equal(unescapeText(text, D), text);
      assert.equal(escapeText(text, D), text);
    }
    assert.equal(unescapeText('&E&X0D&E&', D), '&X0D&');
  });

  it('keeps a lone escape character, and writes it escaped from then on', () => {
    assert.equal(unescapeText('R&D', D), 'R&D');
    assert.equal(unescapeText('a&b&R&c', D), 'a&b\\c', 'the would-be closing & can open a real sequence');
    assert.equal(escapeText('R&D', D), 'R&E&D');
    assert.equal(unescapeText(escapeText('R&D and S&P', D), D), 'R&D and S&P');
  });
});

describe('records', () => {
  it('keeps the number of fields: absent, empty and trailing empty fields differ', () => {
    assert.deepEqual(decodeRecord('L|1', D), { type: 'L', sequence: '1' });
    assert.deepEqual(decodeRecord('L|1|', D), { type: 'L', sequence: '1', terminationCode: '' });
    assert.deepEqual(decodeRecord('L', D), { type: 'L' });
    for (const text of ['L|1', 'L|1|', 'L', 'P|1', 'R|1|^^^GLU|5.2|||||F||||', 'O|1||||||||||||||||||||||||||||||', 'C|1||']) {
      assert.equal(encodeRecord(decodeRecord(text, D), D), text);
    }
  });

  it('keeps fields past the standard\'s last one as extra', () => {
    const r = decodeRecord('R|1|^^^A|1|u||N||F||op|s|c|inst|x1|y^z|', D) as ResultRecord;
    assert.equal(r.instrumentId, 'inst');
    assert.deepEqual(r.extra, ['x1', ['y', 'z'], '']);
    assert.equal(encodeRecord(r, D), 'R|1|^^^A|1|u||N||F||op|s|c|inst|x1|y^z|');
  });

  it('keeps padding, leading zeros, comparators and decimal commas as text', () => {
    const r = decodeRecord('R|1|^^^^WBC^1|  5.5|10*3/uL', D) as ResultRecord;
    assert.equal(r.value, '  5.5');
    assert.equal((decodeRecord('R|1|^^^X|7,41', D) as ResultRecord).value, '7,41');
    assert.equal((decodeRecord('R|1|^^^X|< 839', D) as ResultRecord).value, '< 839');
    assert.equal((decodeRecord('O|1|000004782', D) as OrderRecord).specimenId, '000004782');
  });

  it('keeps an unknown record type as raw text', () => {
    const m = roundTrip('H|\\^&\rZ|1|a^b&X&c|\rL|1\r');
    assert.deepEqual(m.records[1], { type: 'raw', text: 'Z|1|a^b&X&c|' });
  });

  it('reads M and S records as a sequence and plain fields', () => {
    assert.deepEqual(decodeRecord('M|1|HISTOGRAM|RBC^PLT|a\\b', D), { type: 'M', sequence: '1', fields: ['HISTOGRAM', ['RBC', 'PLT'], [['a'], ['b']]] });
    assert.deepEqual(decodeRecord('S|2', D), { type: 'S', sequence: '2', fields: [] });
    for (const text of ['M|1|HISTOGRAM|RBC^PLT|a\\b', 'M', 'M|', 'M||', 'S|1||']) assert.equal(encodeRecord(decodeRecord(text, D), D), text);
  });

  it('names the record and field of a control character in the text', () => {
    assert.throws(
      () => decodeMessage('H|\\^&\rR|1|^^^A|5\x03.2\rL|1\r'),
      (e: unknown) => e instanceof AstmDecodeError && e.record === 2 && e.field === 4 && /<ETX>/.test(e.message),
    );
  });

  it('writes a record with a non-standard escape exactly as it came, until a field is changed', () => {
    const text = 'C|1|I|R&D lab|G';
    const c = decodeRecord(text, D);
    assert.equal(c.type === 'C' && c.text, 'R&D lab');
    assert.equal(c.type === 'C' && c.verbatim, text);
    assert.equal(encodeRecord(c, D), text);
    assert.deepEqual(decodeRecord(encodeRecord(c, D), D), c);
    const edited = { ...c, text: 'R&D lab, room 2' } as AstmRecord;
    assert.equal(encodeRecord(edited, D), 'C|1|I|R&E&D lab, room 2|G');
    const tampered = { ...c, verbatim: 'C|1|I|something else|G' } as AstmRecord;
    assert.equal(encodeRecord(tampered, D), 'C|1|I|R&E&D lab|G', 'a verbatim text that no longer matches the fields is not sent');
  });
});

describe('encoding', () => {
  it('writes an order download built from scratch', () => {
    const message: AstmMessage = {
      delimiters: D,
      records: [
        { type: 'H', delimiters: D, messageControlId: '', accessPassword: '', senderId: 'LIS', senderAddress: '', reserved: '', senderPhone: '', characteristics: '', receiverId: '', comments: '', processingId: 'P', version: 'LIS2-A2', timestamp: '20261121093015' },
        { type: 'P', sequence: '1', practicePatientId: '', laboratoryPatientId: 'PID-1', patientId3: '', name: ['Doe', 'Jane'] },
        { type: 'O', sequence: '1', specimenId: 'S|1^2', instrumentSpecimenId: '', universalTestId: [['', '', '', 'GLU'], ['', '', '', 'CRE']], priority: 'R', actionCode: 'N', reportType: 'O' },
        { type: 'L', sequence: '1', terminationCode: 'N' },
      ],
    };
    const text = encodeMessage(message);
    assert.equal(
      text,
      'H|\\^&|||LIS|||||||P|LIS2-A2|20261121093015\r' +
        'P|1||PID-1||Doe^Jane\r' +
        'O|1|S&F&1&S&2||^^^GLU\\^^^CRE|R||||||N||||||||||||||O\r' +
        'L|1|N\r',
    );
    const back = decodeMessage(text);
    assert.equal((back.records[2] as OrderRecord).specimenId, 'S|1^2');
    assert.deepEqual(back.delimiters, D);
    for (const i of [0, 1, 3]) assert.deepEqual(back.records[i], message.records[i]);
    assert.equal((back.records[2] as OrderRecord).reportType, 'O');
  });

  it('takes the delimiters from the H when the message has none, and refuses a disagreement', () => {
    const records: AstmRecord[] = [{ type: 'H', delimiters: ERBA }, { type: 'R', sequence: '1', value: [['a'], ['b']] }];
    assert.equal(encodeMessage({ records } as AstmMessage), 'H|`^&\rR|1||a`b\r');
    assert.throws(() => encodeMessage({ delimiters: D, records }), (e: unknown) => e instanceof AstmDelimiterError && e.record === 1);
  });

  it('refuses a CR or LF inside a value, which would start a new record', () => {
    const injected = { delimiters: D, records: [{ type: 'H', delimiters: D }, { type: 'C', sequence: '1', source: 'L', text: 'fine\rP|2||OTHER-PATIENT' }] } as AstmMessage;
    assert.throws(() => encodeMessage(injected), (e: unknown) => e instanceof AstmEncodeError && e.record === 2 && e.field === 4 && /<CR>/.test(e.message));
    assert.throws(() => encodeValue('a\nb', D), /<LF>/);
    assert.throws(() => encodeValue('a\x17b', D), /<ETB>/);
  });

  it('refuses misspelt fields, unknown types and values of the wrong shape', () => {
    const at = (record: unknown) => () => encodeMessage({ delimiters: D, records: [{ type: 'H', delimiters: D }, record] } as AstmMessage);
    assert.throws(at({ type: 'O', sequence: '1', specimenID: 'S1' }), (e: unknown) => e instanceof AstmEncodeError && e.record === 2 && /"specimenID"/.test(e.message));
    assert.throws(at({ type: 'X', text: 'X|1' }), /unknown record type "X"/);
    assert.throws(at({ type: 'R', sequence: 1 }), (e: unknown) => e instanceof AstmEncodeError && e.field === 2);
    assert.throws(at({ type: 'R', value: [] }), /empty array/);
    assert.throws(at({ type: 'R', value: [['a'], []] }), /non-empty arrays/);
    assert.throws(at({ type: 'raw', text: 'R|1|x' }), /would be read as a R record/);
    assert.throws(() => encodeRecord({ type: 'R', sequence: '1' }), /needs the delimiters/);
    assert.ok(new AstmEncodeError('x') instanceof AstmRecordError);
  });
});

describe('messages', () => {
  it('keeps whether the last record had its CR', () => {
    assert.equal(roundTrip('H|\\^&\rL|1|N').unterminated, true);
    assert.equal(roundTrip('H|\\^&\rL|1|N\r').unterminated, undefined);
    assert.deepEqual(roundTrip('H|\\^&\r\rL|1|N\r').records[1], { type: 'raw', text: '' });
  });

  it('accepts CR LF between records when every CR has its LF', () => {
    const m = roundTrip('H|\\^&\r\nP|1\r\nL|1|N\r\n');
    assert.equal(m.separator, '\r\n');
    assert.equal(m.records.length, 3);
  });

  it('keeps an LF left after the final CR of a CR-separated text', () => {
    const m = roundTrip('H|\\^&\rP|1\rL|1|N\r\n');
    assert.equal(m.trailingLf, true);
    assert.equal(m.separator, undefined);
    assert.deepEqual(m.records.map((r) => r.type), ['H', 'P', 'L']);
    assert.deepEqual(splitMessages('H|\\^&\rL|1\rH|\\^&\rL|1\r\n'), ['H|\\^&\rL|1\r', 'H|\\^&\rL|1\r\n']);
    assert.throws(() => encodeMessage({ ...m, unterminated: true }), /trailingLf/);
  });

  it('refuses an LF that is not part of a CR LF, naming the record', () => {
    assert.throws(() => decodeMessage('H|\\^&\rP|1\nL|1\r'), (e: unknown) => e instanceof AstmDecodeError && e.record === 2 && /LF/.test(e.message));
    assert.throws(() => decodeMessage('H|\\^&\r\nP|1\rL|1\r\n'), (e: unknown) => e instanceof AstmDecodeError && e.record === 2 && /partly/.test(e.message));
  });

  it('splits a text into messages without losing a character', () => {
    const text = 'H|\\^&\rL|1\rH|\\^&\rL|1';
    assert.deepEqual(splitMessages(text), ['H|\\^&\rL|1\r', 'H|\\^&\rL|1']);
    assert.deepEqual(splitMessages('R|1\rH|\\^&\r'), ['R|1\r', 'H|\\^&\r']);
    assert.deepEqual(splitMessages(''), []);
  });
});

describe('values', () => {
  it('take the shape of their text', () => {
    assert.equal(decodeValue('GLU', D), 'GLU');
    assert.deepEqual(decodeValue('^^^GLU', D), ['', '', '', 'GLU']);
    assert.deepEqual(decodeValue('^^^GLU\\^^^CRE', D), [['', '', '', 'GLU'], ['', '', '', 'CRE']]);
    assert.deepEqual(decodeValue('F\\R', D), [['F'], ['R']]);
    assert.equal(decodeValue('', D), '');
  });

  it('are read alike whatever their shape', () => {
    assert.equal(component('GLU', 1), 'GLU');
    assert.equal(component(['', '', '', 'GLU'], 4), 'GLU');
    assert.equal(component([['', '', '', 'GLU'], ['', '', '', 'CRE']], 4, 2), 'CRE');
    assert.equal(component(undefined, 1), '');
    assert.equal(component('GLU', 3), '');
    assert.deepEqual(repeatsOf(['a', 'b']), [['a', 'b']]);
    assert.deepEqual(repeatsOf(undefined), []);
    assert.throws(() => component('x', 0), RangeError);
  });
});
