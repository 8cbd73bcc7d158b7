/**
 * The table of examples in docs/examples.md, made from EXAMPLES: `npm run
 * examples` writes it between its two markers, and a unit test fails when the
 * committed page lists other examples or other defaults than the flows have.
 */
import { EXAMPLES, exampleFolder, tabSettings, type ExampleSpec } from './examples';
import { findHl7Profile } from '../lib/protocols/hl7/dialects';
import { getProfile } from '../lib/protocols/astm/dialects';
import { findFileProfile } from '../lib/protocols/file';

export const TABLE_START = '<!-- The table of examples: npm run examples writes it from demo/example-specs.ts. -->';
export const TABLE_END = '<!-- End of the table of examples. -->';

function dialectLabel(spec: ExampleSpec): string {
  if (spec.protocol === 'hl7') return findHl7Profile(spec.dialect)?.label ?? spec.dialect;
  if (spec.protocol === 'file') return findFileProfile(spec.dialect)?.label ?? spec.dialect;
  return getProfile(spec.dialect).label;
}

/** One row per example, by folder then file name: the order Node-RED's menu lists them in. */
export function examplesTable(): string {
  const rows = [...EXAMPLES]
    .sort((a, b) => exampleFolder(a).localeCompare(exampleFolder(b)) || a.file.localeCompare(b.file))
    .map((spec) => `| ${exampleFolder(spec)} | \`${spec.file}\` | ${spec.analyzer} | \`${spec.dialect}\`: ${dialectLabel(spec)} | ${tabSettings(spec).map((v) => `\`${v.name}\` = \`${v.value}\``).join('<br>')} |`);
  return [
    TABLE_START,
    '',
    '| Folder | Example | Link node (the Lab sidebar\'s box) | Dialect | Tab variables and their defaults |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    TABLE_END,
  ].join('\n');
}

/** The page with its table replaced by examplesTable(); a page without both markers is an error. */
export function withExamplesTable(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/examples.md has lost the markers of its table of examples');
  return `${doc.slice(0, start)}${examplesTable()}${doc.slice(end + TABLE_END.length)}`;
}
