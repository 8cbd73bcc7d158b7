/**
 * Bio-Rad Bio-Plex Manager's XML export (format `bioplex-xml`) read as a
 * table, so that a dialect's layout, QC rules and sample rule read it as any
 * other: a header row of BIOPLEX_COLUMNS, then one row per well and bead
 * region of the run's regions of interest.
 *
 * The export (root `bpm:BioPlexManager`, Bio-Plex Manager 6) holds what was
 * measured under `Wells/Well` (RowNo, ColNo: the plate position), each with
 * the run's `RunSettings/RegionsOfInterest/Region` (the assay's bead regions)
 * and `BeadRegions/BeadRegion` (RegionNumber) with its `Median` fluorescence
 * and `RegionCount` (beads counted); and what the wells are under `Samples`:
 * groups `Blanks`, `Controls`, `Standards`, `Unknowns`, each sample a
 * `Label` and its `MemberWells/MemberWell` (RowNo, ColNo), each member well's
 * `MWAnalytes/MWAnalyte` naming the analyte (`AnalyteName`) of each region.
 *
 * A row's sample is the Label of the sample whose member well it is (never
 * the well's position), its type the sample's kind (`Standard`), its analyte
 * the name that member well gives the region (else the name the plate's
 * other wells give it). A region of interest the well counted no bead of is
 * a row with no Median (a result left empty, said so); so is each analyte of a
 * member well the export holds no measurement of (no `Well` for it: not
 * acquired, or left out of the export). Bead regions outside
 * the regions of interest (region 0: beads no region took; stray regions)
 * are no analyte of the assay, and no row. A sample's wells are each a row:
 * replicate wells are each sent, as the ASTM reading sends each replicate.
 * Each row's line is its BeadRegion's line in the file.
 */
import { childNamed, childrenNamed, localName, xmlSteps, type XmlElement } from './xml';
import { checkpoints, type Steps } from '../../util/slices';
import { DEFAULT_MAX_ROWS, RowLimitError, type FileRow } from './table';

/** The table's columns, in order, as the dialect's layout names them. */
export const BIOPLEX_COLUMNS = ['Well', 'Type', 'Sample', 'Region', 'Analyte', 'Median', 'Count', 'Acquired'] as const;

/** An export that is XML but not what the reader expects: named with the line of the element at fault. */
export class BioplexError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = 'BioplexError';
  }
}

/** A plate position: RowNo 1 is A. */
function wellName(el: XmlElement, what: string): string {
  const row = Number(el.attrs.RowNo);
  const col = Number(el.attrs.ColNo);
  if (!Number.isInteger(row) || row < 1 || row > 32 || !Number.isInteger(col) || col < 1 || col > 48) throw new BioplexError(`${what} has no plate position (RowNo ${JSON.stringify(el.attrs.RowNo ?? '')}, ColNo ${JSON.stringify(el.attrs.ColNo ?? '')})`, el.line);
  const letter = row <= 26 ? String.fromCharCode(64 + row) : `A${String.fromCharCode(64 + row - 26)}`;
  return `${letter}${col}`;
}

const textOf = (el: XmlElement | undefined): string => el?.text.trim() ?? '';

interface Member {
  type: string;
  label: string;
  names: Map<string, string>;
  line: number;
}

/** The export's text read into rows: BIOPLEX_COLUMNS, then a row per well and region of interest; RowLimitError past maxRows. */
export function* bioplexRowSteps(text: string, maxRows = DEFAULT_MAX_ROWS): Steps<FileRow[]> {
  const root = yield* xmlSteps(text);
  if (localName(root.name) !== 'BioPlexManager') throw new BioplexError(`the root element is <${root.name}>, not <bpm:BioPlexManager>: this is no Bio-Plex Manager XML export`, root.line);
  const wells = childNamed(root, 'Wells');
  const samples = childNamed(root, 'Samples');
  if (wells === undefined) throw new BioplexError('the export has no <Wells> element (the measured wells): export the document with its well data', root.line);
  if (samples === undefined) throw new BioplexError('the export has no <Samples> element (which sample each well holds): a well\'s position is never a sample number', root.line);
  const tick = checkpoints();

  // Each member well's sample; and each region's analyte as the plate names it, for a well no sample lists.
  const members = new Map<string, Member>();
  const plateNames = new Map<string, string>();
  for (const group of samples.children) {
    for (const sample of group.children) {
      const label = textOf(childNamed(sample, 'Label'));
      for (const mws of childrenNamed(sample, 'MemberWells')) {
        for (const mw of childrenNamed(mws, 'MemberWell')) {
          if (tick()) yield;
          const well = wellName(mw, '<MemberWell>');
          const earlier = members.get(well);
          if (earlier !== undefined) throw new BioplexError(`well ${well} is a member of sample ${JSON.stringify(label)} and of sample ${JSON.stringify(earlier.label)} (line ${earlier.line}): whose result it is cannot be told`, mw.line);
          const names = new Map<string, string>();
          for (const list of childrenNamed(mw, 'MWAnalytes')) {
            for (const a of childrenNamed(list, 'MWAnalyte')) {
              const region = (a.attrs.RegionNumber ?? '').trim();
              const name = textOf(childNamed(a, 'AnalyteName'));
              if (region === '' || name === '') continue;
              names.set(region, name);
              if (!plateNames.has(region)) plateNames.set(region, name);
            }
          }
          members.set(well, { type: localName(sample.name), label, names, line: mw.line });
        }
      }
    }
  }

  const rows: FileRow[] = [{ line: wells.line, cells: [...BIOPLEX_COLUMNS] }];
  const push = (line: number, cells: string[]) => {
    if (rows.length > maxRows) throw new RowLimitError(maxRows, line);
    rows.push({ line, cells });
  };
  const measured = new Map<string, number>();
  for (const w of childrenNamed(wells, 'Well')) {
    const well = wellName(w, '<Well>');
    const earlier = measured.get(well);
    if (earlier !== undefined) throw new BioplexError(`well ${well} is measured twice (its <Well> on line ${earlier} too): which reading is its result cannot be told`, w.line);
    measured.set(well, w.line);
    const member = members.get(well);
    const acquired = textOf(childNamed(w, 'AcquisitionTime'));
    const roi = childNamed(w, 'RunSettings');
    const listed = roi === undefined ? undefined : childNamed(roi, 'RegionsOfInterest');
    // The run's regions of interest; a well that lists none: the regions its sample names an analyte for.
    const regions = listed !== undefined ? childrenNamed(listed, 'Region').map((r) => (r.attrs.RegionNumber ?? '').trim()).filter((r) => r !== '') : [...(member?.names.keys() ?? [])];
    const ofInterest = new Set(regions);
    const seen = new Set<string>();
    const row = (region: string, line: number, median: string, count: string) => push(line, [well, member?.type ?? '', member?.label ?? '', region, member?.names.get(region) ?? plateNames.get(region) ?? '', median, count, acquired]);
    for (const list of childrenNamed(w, 'BeadRegions')) {
      for (const b of childrenNamed(list, 'BeadRegion')) {
        if (tick()) yield;
        const region = (b.attrs.RegionNumber ?? '').trim();
        if (!ofInterest.has(region)) continue;
        if (seen.has(region)) throw new BioplexError(`well ${well} has bead region ${region} twice`, b.line);
        seen.add(region);
        row(region, b.line, textOf(childNamed(b, 'Median')), textOf(childNamed(b, 'RegionCount')));
      }
    }
    for (const region of ofInterest) if (!seen.has(region)) row(region, w.line, '', '0');
  }
  // A sample's member well the export holds no measurement of (not acquired, or left out of Wells): each of its
  // analytes a row without a value, held for a person, so that no sample's result goes missing without a word.
  for (const [well, m] of members) {
    if (measured.has(well)) continue;
    for (const [region, name] of m.names) {
      if (tick()) yield;
      push(m.line, [well, m.type, m.label, region, name, '', '', '']);
    }
  }
  return rows;
}

