/**
 * The HL7 fixture loader (test/support/hl7-fixtures.ts): one table row per
 * file, every notation undone into messages that start with MSH, and the
 * session logs split into reads and messages per side as test/fixtures/
 * SOURCES.md describes them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HL7_FIXTURES, allHl7Messages, hl7FixtureFiles, loadHl7Fixture } from '../support/hl7-fixtures';

describe('HL7 fixtures', () => {
  it('has one table row per file in test/fixtures/hl7, and no row without a file', () => {
    assert.deepEqual(hl7FixtureFiles(), Object.keys(HL7_FIXTURES).sort());
  });

  it('counts the vendors as SOURCES.md and SOURCES-added.md do (34 files from 7 vendors)', () => {
    const count: Record<string, number> = {};
    for (const spec of Object.values(HL7_FIXTURES)) count[spec.vendor] = (count[spec.vendor] ?? 0) + 1;
    assert.deepEqual(count, { Analyx: 2, BioSystems: 3, EDAN: 2, Mindray: 13, Roche: 10, Siemens: 2, URIT: 2 });
  });

  it('turns every file into messages that start with MSH and hold no MLLP byte', () => {
    const all = allHl7Messages();
    assert.equal(all.length, 42);
    for (const m of all) {
      assert.equal(m.bytes.toString('latin1', 0, 4), 'MSH|', m.id);
      assert.ok(!m.bytes.includes(0x0b) && !m.bytes.includes(0x1c), m.id);
    }
  });

  it('splits the session logs into reads and messages per side, in time order', () => {
    const sides = (name: string) => loadHl7Fixture(name).messages.map((m) => `${m.from}:${m.bytes.toString('latin1').split(/[\r\n]/)[0]?.split('|')[8]}`);
    assert.deepEqual(sides('roche-cobaspro-esu-inu-session.log.txt'), ['analyzer:ESU^U01^ESU_U01', 'host:ACK^U01^ACK', 'analyzer:INU^U05^INU_U05', 'host:ACK^U05^ACK']);
    assert.deepEqual(sides('roche-cobaspro-oul-r22-hba1c-session.log.txt'), ['analyzer:OUL^R22^OUL_R22', 'analyzer:OUL^R22^OUL_R22', 'host:ACK^R22^ACK']);
    assert.deepEqual(sides('roche-cobaspure-oul-r22-session.log.txt'), ['analyzer:OUL^R22^OUL_R22', 'host:ACK^U05^ACK', 'analyzer:ESU^U01^ESU_U01', 'host:ACK^U01^ACK']);
    const pure = loadHl7Fixture('roche-cobaspure-oul-r22-session.log.txt');
    assert.deepEqual(
      pure.reads?.map((r) => `${r.from[0]}${r.bytes.length}`),
      ['a2048', 'a2048', 'a2048', 'a2048', 'a1197', 'h120', 'a201', 'h120'],
    );
    // The wire is the reads joined: a message spans reads, and a read never holds two.
    assert.equal(pure.wire.length, 2048 * 4 + 1197 + 120 + 201 + 120);
  });

  it('undoes each notation to the bytes SOURCES.md describes', () => {
    const one = (name: string) => loadHl7Fixture(name).messages[0]?.bytes.toString('utf8') ?? '';
    // Tokens with a <CR> the PDF wrapped as `<` and `CR>`.
    assert.match(one('mindray-cl2000i-oru-r01-result.txt'), /\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\|\rOBX\|1\|NM\|2\|TBil\|/);
    assert.ok(one('mindray-cl2000i-oru-r01-result.txt').includes('|linchuangzhenduan|'));
    // The manual's `·` is a space again.
    assert.ok(one('roche-cobaspro-oul-r22-manual.txt').includes('^Other Supplemental^'));
    // LF for CR, proved by the LF after the FS.
    assert.ok(!one('siemens-clinitek-status-oru-r01-qc.txt').includes('\n'));
    assert.deepEqual([...loadHl7Fixture('siemens-clinitek-status-oru-r01-qc.txt').wire.subarray(-3)], [0x0d, 0x1c, 0x0d]);
    // The one-line notation: `\n` tokens are LF, `\\` a backslash, `\"` a quote.
    const sars = one('roche-cobas6800-oul-r22-sarscov2.txt');
    assert.ok(sars.startsWith('MSH|^~\\&|COBAS6800/8800||LIS||'));
    assert.equal(sars.split('\n').length, 27);
    assert.ok(sars.includes('|1/2|NA|||"|||F|'));
    // The Ruby literal: VT … CR FS CR.
    const clinitek = loadHl7Fixture('siemens-clinitek-status-oru-r01.txt').wire;
    assert.deepEqual([clinitek[0], ...clinitek.subarray(-3)], [0x0b, 0x0d, 0x1c, 0x0d]);
    assert.ok(one('urit-ut5160-oru-r01-manual.txt').includes('|URIT|UT-5160|LIS|PC|'));
  });
});
