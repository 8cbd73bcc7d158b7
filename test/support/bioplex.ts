/**
 * A small Bio-Rad Bio-Plex Manager XML export written here, in the elements
 * and attributes of the real one (test/fixtures/allotropy/biorad_bioplex_manager,
 * Bio-Plex Manager 6.2), with only what the reader looks at: the real file's
 * wells are all standards, so an example needs patient wells of its own.
 */

export interface BioplexWell {
  /** `A1`: RowNo and ColNo. */
  well: string;
  /** Region number -> Median; region 0 is the beads no region took. */
  medians: Readonly<Record<string, string>>;
  acquired?: string;
}

export interface BioplexSample {
  kind: 'Blank' | 'Control' | 'Standard' | 'Unknown';
  label: string;
  wells: readonly string[];
}

const at = (well: string) => {
  const row = well.charCodeAt(0) - 64;
  const col = Number(well.slice(1));
  return `RowNo="${row}" ColNo="${col}"`;
};

/** The export of these wells and samples, the analytes named by region (`{ 12: 'alpha' }`); every region named is of interest. */
export function bioplexExport(analytes: Readonly<Record<string, string>>, wells: readonly BioplexWell[], samples: readonly BioplexSample[]): string {
  const regions = Object.keys(analytes);
  const wellXml = wells.map((w) => {
    const beads = Object.entries(w.medians).map(([r, median]) => `                <BeadRegion RegionNumber="${r}">\n                    <RegionCount>50</RegionCount>\n                    <Median>${median}</Median>\n                    <Mean>${median}</Mean>\n                </BeadRegion>`);
    return [
      `        <Well ${at(w.well)} WellNo="1">`,
      '            <PlateID>555</PlateID>',
      `            <AcquisitionTime>${w.acquired ?? '2026-05-09T18:55:02Z'}</AcquisitionTime>`,
      '            <RunSettings>',
      '                <SampleVolume Unit="µl">50</SampleVolume>',
      '                <RegionsOfInterest>',
      ...regions.map((r) => `                    <Region RegionNumber="${r}" />`),
      '                </RegionsOfInterest>',
      '            </RunSettings>',
      '            <BeadRegions>',
      ...beads,
      '            </BeadRegions>',
      '            <BeadEventData Events="3" NumberColumns="2" Column_1="RegionNumber" Column_2="Reporter1">0 138\n                12 3278\n                15 8013</BeadEventData>',
      '        </Well>',
    ].join('\n');
  });
  const groups = (['Blank', 'Control', 'Standard', 'Unknown'] as const).flatMap((kind) => {
    const of = samples.filter((s) => s.kind === kind);
    if (of.length === 0) return [];
    const one = (s: BioplexSample) => [
      `            <${kind}>`,
      `                <Description></Description><Label>${s.label}</Label>`,
      '                <MemberWells>',
      ...s.wells.map((w) => [`                    <MemberWell ${at(w)} WellNumber="1">`, '                        <MWAnalytes>', ...regions.map((r) => `                            <MWAnalyte RegionNumber="${r}">\n                                <AnalyteName>${analytes[r]}</AnalyteName>\n                                <Reading Valid="true" Code="0" OutlierType="None">1</Reading>\n                            </MWAnalyte>`), '                        </MWAnalytes>', '                    </MemberWell>'].join('\n')),
      '                </MemberWells>',
      `            </${kind}>`,
    ].join('\n');
    return [`        <${kind}s>`, ...of.map(one), `        </${kind}s>`];
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<bpm:BioPlexManager xmlns:bpm="http://www.Bio-Rad.com/XMLschema/2010/Bio-Plex_5" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" XmlExportDateTime="2026-05-09T19:20:40Z" BioPlexManagerVersion="6.2.0.175">',
    '    <NativeDocumentName>run 1</NativeDocumentName>',
    '    <PlateDimensions Columns="12" Rows="8" TotalWells="96" />',
    '    <Wells>',
    ...wellXml,
    '    </Wells>',
    '    <Samples>',
    ...groups,
    '    </Samples>',
    '</bpm:BioPlexManager>',
    '',
  ].join('\n');
}

/** The example's sample: a standard in A1, two patients in A2 and A3 (A3 counted no bead of bravo), A4 no sample's. */
export const BIOPLEX_SAMPLE = bioplexExport(
  { 12: 'alpha', 15: 'bravo' },
  [
    { well: 'A1', medians: { 0: '138.0', 12: '1015.00', 15: '4650.00' } },
    { well: 'A2', medians: { 12: '781.00', 15: '322.50', 43: '12.0' } },
    { well: 'A3', medians: { 0: '95.0', 12: '655.00' } },
    { well: 'A4', medians: { 12: '20.00', 15: '31.00' } },
  ],
  [
    { kind: 'Standard', label: 'S1', wells: ['A1', 'B1'] },
    { kind: 'Unknown', label: 'PT-1001', wells: ['A2'] },
    { kind: 'Unknown', label: 'PT-1002', wells: ['A3'] },
  ],
);
