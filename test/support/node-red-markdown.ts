/**
 * Node-RED's own markdown renderer for help texts, run in Node: the marked
 * build the editor ships (vendor/vendor.js) with the two extensions red.js adds
 * to it in RED.utils (descriptionList and description: the `: name (type) : text`
 * property lists), taken verbatim from red.js. Only DOMPurify's pass is left out;
 * it removes markup, it never turns text into markup.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createContext, runInContext } from 'node:vm';

const PUBLIC = join(dirname(require.resolve('@node-red/editor-client/package.json')), 'public');
/** Where red.js defines its extensions and where it hands them to marked. */
const EXTENSIONS_FROM = '    const descriptionList = {';
const EXTENSIONS_TO = 'window._marked.use({extensions: [descriptionList, description] } );';

let render: ((markdown: string) => string) | undefined;

/** The HTML the editor's help sidebar would show for this markdown (before DOMPurify). */
export function renderHelpMarkdown(markdown: string): string {
  render ??= loadRenderer();
  return render(markdown);
}

function loadRenderer(): (markdown: string) => string {
  const vendor = readFileSync(join(PUBLIC, 'vendor', 'vendor.js'), 'utf8').split('\n');
  // vendor.js is one library per line; marked's UMD wrapper sets globalThis.marked when there is no module system.
  const marked = vendor.find((line) => line.includes('.marked={})}('));
  if (!marked) throw new Error('marked not found in @node-red/editor-client vendor.js');
  const red = readFileSync(join(PUBLIC, 'red', 'red.js'), 'utf8');
  const from = red.indexOf(EXTENSIONS_FROM);
  const to = red.indexOf(EXTENSIONS_TO);
  if (from < 0 || to < from) throw new Error('the markdown extensions of RED.utils were not found in red.js: has Node-RED changed how it renders help?');
  const context = createContext({ btoa: (s: string) => Buffer.from(s, 'latin1').toString('base64') }) as Record<string, unknown>;
  context.globalThis = context;
  runInContext(marked, context);
  context.window = { _marked: context.marked };
  runInContext(red.slice(from, to + EXTENSIONS_TO.length), context);
  const parse = (context.marked as { parse: (s: string) => string }).parse;
  return (markdown) => parse(markdown);
}

/** The markdown of a help file's `<script type="text/markdown" data-help-name="type">` block. */
export function helpMarkdown(html: string, type: string): string {
  const m = new RegExp(`<script type="text/markdown" data-help-name="${type}">\\n?([\\s\\S]*?)</script>`).exec(html);
  if (!m) throw new Error(`no markdown help block for ${type}`);
  return m[1]!;
}
