/**
 * Large result files, generated: the exports that used to hold Node-RED's
 * event loop for seconds, for the stall bench (./file-stall.ts) and the tests
 * that prove they no longer do. Nothing here is committed as a file: each is
 * made in memory (or written to os.tmpdir() by its caller).
 */
import { zip } from '../test/support/zip';

/**
 * A generic CSV (Sample,Test,Result) of `rows` rows: 40 tests per sample, the
 * sample numbers in base 36, so each row is about 8 bytes (2 million rows:
 * 16 MB, the shape of the export that stalled Node-RED for seconds).
 */
export function bigCsv(rows: number): Buffer {
  const parts: string[] = ['Sample,Test,Result\n'];
  for (let i = 0; i < rows; i++) parts.push(`${Math.floor(i / 40).toString(36)},${(i % 40).toString(36)},${i % 10}\n`);
  return Buffer.from(parts.join(''), 'utf8');
}

/** A CSV of about `bytes` bytes in the same shape: a preview or pointing request's 2.5 MB file. */
export function csvOfSize(bytes: number): Buffer {
  return bigCsv(Math.floor(bytes / 8.3));
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';

/**
 * An .xlsx workbook whose shared-strings table holds `strings` strings of
 * about 85 characters (400,000: 1.2 MB packed, 41 MB unpacked), and one sheet
 * whose ten result rows (Sample, Test, Result) name a few of them.
 * `understated`: the ZIP directory declares every entry at 100 bytes (a
 * hostile or broken file: it reads as small until it is inflated).
 */
export function sharedStringsWorkbook(strings: number, options: { understated?: boolean } = {}): Buffer {
  const pad = 'x'.repeat(80);
  const sst: string[] = [`${XML}<sst xmlns="${MAIN}" count="${strings}" uniqueCount="${strings}">`];
  for (let i = 0; i < strings; i++) sst.push(`<si><t>${i < 20 ? `S-${i}` : `${pad}${i}`}</t></si>`);
  sst.push('</sst>');
  const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
  const rows = [`<row r="1">${inline('A1', 'Sample')}${inline('B1', 'Test')}${inline('C1', 'Result')}</row>`];
  for (let r = 2; r <= 11; r++) rows.push(`<row r="${r}"><c r="A${r}" t="s"><v>${r}</v></c>${inline(`B${r}`, 'GLU')}<c r="C${r}"><v>${r}.5</v></c></row>`);
  const parts: Array<[string, string]> = [
    [
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    ],
    ['_rels/.rels', `${XML}<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
    ['xl/workbook.xml', `${XML}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Results" sheetId="1" r:id="rId1"/></sheets></workbook>`],
    ['xl/_rels/workbook.xml.rels', `${XML}<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`],
    ['xl/worksheets/sheet1.xml', `${XML}<worksheet xmlns="${MAIN}"><sheetData>${rows.join('')}</sheetData></worksheet>`],
    ['xl/sharedStrings.xml', sst.join('')],
  ];
  return zip(parts.map(([name, text]) => ({ name, data: Buffer.from(text, 'utf8'), ...(options.understated ? { declared: 100 } : {}) })));
}
