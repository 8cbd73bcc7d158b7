/**
 * The package's XML reader (lib/protocols/file/xml.ts): what it gives of
 * elements, attributes, text, entities, comments and CDATA; the limits it
 * keeps; each malformed input refused with its line and what is wrong; and
 * its cost linear in the input.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { childNamed, childrenNamed, localName, parseXml, xmlSteps, XmlError, type XmlElement } from '../../lib/protocols/file/xml';

const refused = (text: string, line: number, message: RegExp, limits?: Parameters<typeof parseXml>[1]) =>
  assert.throws(
    () => parseXml(text, limits),
    (err: unknown) => {
      assert.ok(err instanceof XmlError, String(err));
      assert.equal(err.line, line, err.message);
      assert.match(err.message, message);
      assert.ok(err.message.startsWith(`line ${line}: `), err.message);
      return true;
    },
  );

describe('the XML reader', () => {
  it('reads elements, both kinds of attribute quote, text and self-closing tags, each element with its line', () => {
    const root = parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<bpm:Run xmlns:bpm="urn:x" a=\'one "quoted"\' b = "it\'s">\n  <Well RowNo="1" ColNo="2"><Median>3245.00</Median></Well>\n  <Region RegionNumber="12" />\n</bpm:Run>\n');
    assert.equal(root.name, 'bpm:Run');
    assert.equal(localName(root.name), 'Run');
    assert.deepEqual({ ...root.attrs }, { 'xmlns:bpm': 'urn:x', a: 'one "quoted"', b: "it's" });
    assert.equal(root.line, 2);
    const well = childNamed(root, 'Well')!;
    assert.deepEqual([{ ...well.attrs }, well.line, childNamed(well, 'Median')!.text], [{ RowNo: '1', ColNo: '2' }, 3, '3245.00']);
    const region = childNamed(root, 'Region')!;
    assert.deepEqual([region.attrs.RegionNumber, region.children.length, region.line], ['12', 0, 4]);
    assert.equal(childrenNamed(root, 'Well').length, 1);
  });

  it('decodes the five predefined entities and character references, in text and attributes', () => {
    const root = parseXml('<a t="&lt;5 &amp; &gt;2 &quot;x&quot; &apos;y&apos;">&#181;l &#xB0;C &#x1F600; A&amp;B &lt;tag&gt;</a>');
    assert.equal(root.attrs.t, '<5 & >2 "x" \'y\'');
    assert.equal(root.text, 'µl °C 😀 A&B <tag>');
  });

  it('keeps CDATA as written, passes comments, processing instructions and a DOCTYPE over, and joins the text around them', () => {
    const root = parseXml('<!DOCTYPE r [ <!ENTITY e "x"> ]>\n<r><!-- a <comment> & more -->one<![CDATA[ <b>&amp;</b> ]]>two<?pi data?></r>');
    assert.equal(root.text, 'one <b>&amp;</b> two');
    assert.equal(root.children.length, 0);
  });

  it('refuses what is not well-formed XML, naming the line and what is wrong', () => {
    refused('<r>\n  <Well>\n    <Median>1</Median>\n  </Wel>\n</r>', 4, /the end tag <\/Wel> does not close <Well>, opened on line 2/);
    refused('<r>\n<a>\n', 3, /the file ends inside <a> opened on line 2 \(no <\/a>\): truncated\?/);
    refused('<r>\n<a b="1', 2, /the file ends inside the value of the attribute b of <a>/);
    refused('<r>\n<a b="1"', 2, /the file ends inside the start tag <a> opened on line 2/);
    refused('<r>\n<!-- never closed\n\n', 4, /the file ends inside a comment opened on line 2 \(no closing -->\)/);
    refused('<r><![CDATA[ open\n</r>', 2, /the file ends inside a CDATA section opened on line 1/);
    refused('<r>\nA & B</r>', 2, /an "&" that starts no entity \(write it as &amp;\)/);
    refused('<r>&nbsp;</r>', 1, /&nbsp; is no entity XML defines/);
    refused('<r>&#0;</r>', 1, /&#0; is no entity XML defines/);
    refused('<r>&constructor;</r>', 1, /&constructor; is no entity XML defines/);
    assert.deepEqual({ ...parseXml('<r __proto__="a" constructor="b"/>').attrs }, { ['__proto__']: 'a', constructor: 'b' });
    refused('<r a=1/>', 1, /the value of the attribute a of <r> is not in quotes/);
    refused('<r a="1" a="2"/>', 1, /the start tag <r> has the attribute a twice/);
    refused('<r a="1"b="2"/>', 1, /needs a space before its attribute/);
    refused('<r>\n<a x="<"/></r>', 2, /holds a "<"/);
    refused('<r/>\n<s/>', 2, /a second root element <s> after <r> \(line 1\)/);
    refused('<r/>\ntrailing', 2, /text outside the root element \("trailing"\)/);
    refused('</r>', 1, /the end tag <\/r> closes nothing/);
    refused('<1r/>', 1, /a start tag has no valid name/);
    refused('   \n', 2, /the file holds no XML element/);
    refused('<r>]]></r>', 1, /"]]>" outside a CDATA section/);
  });

  it('refuses a nesting deeper than its limit, and a text longer than its limit, before building more', () => {
    const deep = (n: number) => '<a>'.repeat(n) + '</a>'.repeat(n);
    assert.doesNotThrow(() => parseXml(deep(64)));
    refused(deep(65), 1, /<a> is nested 65 elements deep, deeper than the 64 an export is allowed/);
    refused(deep(5), 1, /nested 4 elements deep, deeper than the 3/, { maxDepth: 3 });
    refused('<r>0123456789</r>', 1, /the file has 17 characters, more than the 10 an export is allowed/, { maxChars: 10 });
  });

  it('pauses at checkpoints (it can run in slices) and costs in proportion to its input: lines counted once, however long a line', () => {
    const body = '<Well RowNo="1" ColNo="1"><Median>1</Median></Well>\n';
    let pauses = 0;
    const steps = xmlSteps(`<r>${body.repeat(2000)}</r>`);
    let root: XmlElement | undefined;
    for (;;) {
      const next = steps.next();
      if (next.done === true) {
        root = next.value;
        break;
      }
      pauses++;
    }
    assert.equal(root.children.length, 2000);
    assert.ok(pauses >= 10, `${pauses} pauses`);
    // The same 20,000 elements on many lines and on one: neither costs much more than the other, nor quadratically.
    const many = `<r>${body.repeat(20_000)}</r>`;
    const one = many.replaceAll('\n', ' ');
    // The best of three, so a collection or a busy machine in one run does not decide.
    const time = (text: string) =>
      Math.min(
        ...[1, 2, 3].map(() => {
          const start = performance.now();
          parseXml(text);
          return performance.now() - start;
        }),
      );
    const [a, b] = [time(many), time(one)];
    assert.ok(b < a * 5 + 50 && a < b * 5 + 50, `${a.toFixed(0)} ms on many lines, ${b.toFixed(0)} ms on one`);
    // An error on the last line of many is counted right.
    refused(`<r>${'\n'.repeat(5000)}<a></b></r>`, 5001, /the end tag <\/b> does not close <a>/);
  });
});
