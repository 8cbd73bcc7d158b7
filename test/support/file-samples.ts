/**
 * Each built-in file dialect's sample export, as its example's test-mapper
 * and the side-by-side test use it: the instrument's own file
 * (test/fixtures/file, SOURCES.md), or, for the generic CSV that has no
 * instrument, a small export in its layout written here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');

/** The file name of each dialect's sample export under test/fixtures/file. */
export const FILE_SAMPLES: Readonly<Record<string, string>> = {
  'appbio-quantstudio': 'quantstudio-7-flex-results.txt',
  'abbott-m2000rt': 'abbott-m2000rt-results.log',
  'beckman-access-2': 'beckman-access-2-results.csv',
  'thermo-multiskan-go': 'multiskan-go-babesia.csv',
  'thermo-skanit-xlsx': 'skanit-7-varioskan-lux-elisa.xlsx',
  'moldev-softmax-pro': 'softmax-pro-elisa-groups.txt',
  'varian-vista-pro': 'varian-vista-pro-icp.csv',
  'senaite-two-dimension': 'senaite-two-dimension.csv',
  'appbio-quantstudio-design-analysis-xlsx': 'quantstudio-7-pro-diomni-presence-absence.xlsx',
};

/** The generic CSV's sample: one result per row under the columns the dialect names, one no-result value. */
const GENERIC_CSV_SAMPLE = 'Sample,Test,Result\r\nGX-1001,GLU,5.4\r\nGX-1001,CREA,71\r\nGX-1001,ALT,23\r\nGX-1002,GLU,6.1\r\nGX-1002,CREA,---\r\n';

/** The sample export of `dialect` and a file name for it; undefined for a dialect with none. */
export function fileSample(dialect: string): { name: string; bytes: Buffer } | undefined {
  if (dialect === 'generic-csv') return { name: 'generic-run.csv', bytes: Buffer.from(GENERIC_CSV_SAMPLE, 'utf8') };
  const name = FILE_SAMPLES[dialect];
  return name === undefined ? undefined : { name, bytes: readFileSync(join(FIXTURES, name)) };
}
