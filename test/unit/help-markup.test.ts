// Every node's built help, rendered as the editor's help sidebar renders it (Node-RED's own marked and red.js
// extensions, see test/support/node-red-markdown.ts), shows no raw `: name (type) : text` markup.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { helpMarkdown, renderHelpMarkdown } from '../support/node-red-markdown';

/** This file runs as dist/test/unit/...: the package root is three levels up. */
const ROOT = join(__dirname, '..', '..', '..');
const TYPES = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { 'node-red': { nodes: Record<string, string> } })['node-red'].nodes);

/** What the help sidebar would show as text: tags removed, code (where a colon is the content) blanked, entities read. */
function visibleText(html: string): string {
  return html
    .replace(/<pre>[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, '`code`')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/**
 * The property lines of a help text that Node-RED will not render as one: red.js's block rule
 * (descriptionList, `/^(?::[^:\n]+:[^:\n]*(?:\n|$))+/`) takes only lines with exactly two colons and stops at
 * the first line that is not one (a continuation line ends the list, and the rest shows as raw text); its
 * inline rule (description, `/^:([^:\n]+)\(([^:\n]+)\).*?:([^:\n]*)(?:\n|$)/`) needs a `(type)` before the
 * second colon. Outside fenced code, every line that starts with ':' must be such a line, and the line after it
 * another one or blank.
 */
function malformedPropertyLines(markdown: string): string[] {
  const bad: string[] = [];
  const lines = markdown.split('\n');
  let fenced = false;
  lines.forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced || !line.startsWith(':')) return;
    if (!/^:[^:\n]+\([^:\n]+\)[^:\n]*:[^:\n]*$/.test(line)) bad.push(`line ${i + 1}, not ": name (type) : text" with no other colon: ${line}`);
    const next = lines[i + 1];
    if (next !== undefined && next.trim() !== '' && !next.startsWith(':')) bad.push(`line ${i + 2}, goes on a property line, which must be one line: ${next}`);
  });
  return bad;
}

/**
 * Inline code never wraps in the editor (Node-RED's `.red-ui-editor code { white-space: nowrap }`): at the help
 * sidebar's default width (315 px, 8.4 px per monospace character in Chromium) a longer span runs past its right
 * edge. A list of names is written as one span per name, a message quoted as text, a JSON example split at a space.
 */
const LONGEST_INLINE_CODE = 35;
/** Spans left in a help another branch is rewording; each to be split there. Any new one still fails. */
const KNOWN_LONG: Record<string, string[]> = {};

/** The text of every inline code span of rendered help (code blocks left out), entities read. */
function inlineCode(html: string): string[] {
  const text = (s: string) => s.replace(/\s+/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  return [...html.replace(/<pre>[\s\S]*?<\/pre>/g, '').matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => text(m[1]!));
}

describe('help markup as the editor renders it', () => {
  it('renders a well-formed property list as Node-RED does and a broken one as raw text', () => {
    // The renderer under test is Node-RED's: these two cases pin what it does, so the checks below mean something.
    const good = renderHelpMarkdown('### Inputs\n\n: payload (string) : the text.\n: *topic* (string) : a topic.\n');
    assert.match(good, /<dl class="message-properties">\s*<dt>payload<span class="property-type">string<\/span><\/dt><dd>the text\.<\/dd>/);
    assert.deepEqual(malformedPropertyLines('### Inputs\n\n: payload (string) : the text.\n: *topic* (string) : a topic.\n'), []);
    // A colon in the text: the line is no list; the inline rule still takes it, up to the last colon, losing the rest.
    // A line without a (type): raw text.
    const broken = ': topic (string) : `astm:send` marks a message\n: SEND_FAILED : not accepted.\n';
    assert.doesNotMatch(visibleText(renderHelpMarkdown(broken)), /astm/);
    assert.match(visibleText(renderHelpMarkdown(broken)), /: SEND_FAILED : not accepted/);
    assert.equal(malformedPropertyLines(broken).length, 2);
    const continued = ': payload (Buffer) : bytes read from the line,\n  from serial in.\n: topic (string) : a topic.\n';
    assert.match(visibleText(renderHelpMarkdown(continued)), /^: topic \(string\) : /m);
    assert.equal(malformedPropertyLines(continued).length, 1);
  });

  for (const type of TYPES) {
    it(`${type}: every property line is well formed and nothing shows as raw markup`, () => {
      const markdown = helpMarkdown(readFileSync(join(ROOT, 'dist', 'nodes', 'locales', 'en-US', `${type}.html`), 'utf8'), type);
      assert.deepEqual(malformedPropertyLines(markdown), []);
      const html = renderHelpMarkdown(markdown);
      const raw = visibleText(html).split('\n').filter((line) => /^\s*:\s/.test(line) || /\) : /.test(line));
      assert.deepEqual(raw, [], `${type}: raw property markup in the rendered help`);
      // Every property line became one <dt> in a list, and nothing else did: the inline rule also fires in the
      // middle of a paragraph, on a colon right after a code span or emphasis that is followed by `(...)` and a colon.
      const propertyLines = markdown.split('\n').filter((line) => line.startsWith(':')).length;
      assert.equal((html.match(/<dt>/g) ?? []).length, propertyLines, `${type}: property lines that did not render as a property`);
      assert.doesNotMatch(html.replace(/<dl class="message-properties">[\s\S]*?<\/dl>/g, ''), /<dt>/, `${type}: a paragraph taken as a property`);
      for (const heading of ['Inputs', 'Outputs', 'Details']) {
        if (markdown.includes(`### ${heading}\n`)) assert.match(html, new RegExp(`<h3 id="${heading.toLowerCase()}">${heading}</h3>`));
      }
    });

    it(`${type}: no inline code longer than ${LONGEST_INLINE_CODE} characters (it would run past the help sidebar)`, () => {
      const markdown = helpMarkdown(readFileSync(join(ROOT, 'dist', 'nodes', 'locales', 'en-US', `${type}.html`), 'utf8'), type);
      const long = inlineCode(renderHelpMarkdown(markdown)).filter((c) => c.length > LONGEST_INLINE_CODE && !(KNOWN_LONG[type] ?? []).includes(c));
      assert.deepEqual(long, []);
    });
  }
});
