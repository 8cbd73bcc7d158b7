/**
 * Which example flows there are: one per built-in dialect, ASTM and HL7. The
 * list is read from the dialect registries (PROFILES, HL7_PROFILES), so a
 * dialect added there gets its example at the next `npm run examples` with no
 * code here. Seven analyzers have hand-written examples (CURATED: the file
 * names the package has always shipped, the analyzers' real test codes and
 * set-up notes); every other dialect's example is derived from its profile,
 * with placeholder test codes its comment node says to check.
 *
 * Instruments that export result files get one example per built-in file
 * dialect (FILE_PROFILES), in examples/File.
 *
 * Examples sit in one folder per protocol (examples/ASTM, examples/HL7), which
 * Node-RED's Import > Examples menu shows as folders. Not per vendor as well:
 * most vendors have one built-in dialect, and a folder holding one file costs
 * a click and hides the name; file names start with the vendor, so each
 * protocol's list reads grouped by vendor anyway.
 */
import { PROFILES, type DialectProfile } from '../lib/protocols/astm/dialects';
import { HL7_PROFILES, type Hl7DialectProfile } from '../lib/protocols/hl7/dialects';
import { FILE_PROFILES, type FileDialectProfile } from '../lib/protocols/file';

export interface ExampleSpec {
  /** File name without .json: `<vendor>-<model>-<transport>`, unique across the folders. */
  file: string;
  /** The analyzer as the lab calls it: the name of its link node (the Lab sidebar's box) and of its errors. */
  analyzer: string;
  dialect: string;
  /** The analyzer's protocol (default ASTM): which link and message nodes the flow uses. */
  protocol?: 'astm' | 'hl7' | 'file';
  /** The analyzer's line; `folder` for an instrument that exports result files (folder-link). */
  transport: 'serial' | 'tcp' | 'folder';
  /** The tab's label, where `<vendor> <models>` of the dialect would not tell the tab apart or read badly. */
  tabLabel?: string;
  /** LIS test ID (flows/lis-catalog.json) -> the analyzer's test code. */
  tests: Array<{ lisTestId: string; instrumentCode: string; instrumentSubCode?: string }>;
  /**
   * LIS tests the example maps that the demo LIS catalog (flows/lis-catalog.json)
   * does not hold: a file instrument's analytes (an ICP's elements, a PCR target's
   * Ct), named here as a LIS would, for the site to replace with its own.
   */
  lisTests?: Array<{ ID: string; Name: string; Code: string; Type?: string }>;
  /** A file instrument: the export file names folder-link takes (`*.csv`). */
  pattern?: string;
  /** Analyzer-specific set-up notes for the comment node. */
  notes: string[];
  /**
   * The flow npm start runs: a comment node saying so and where its settings
   * come from, and a layout that fits the editor at 1600 px with the sidebar open.
   */
  demo?: boolean;
  /**
   * The analyzer's QC kept in the bridge (a lis-qc node its message node chooses): the control measurements per
   * run of its Westgard set. Only where the analyzer sends each control's level, lot and target with its result,
   * so the example judges QC from its first control, with no table to fill first.
   */
  qc?: { controlsPerRun: 2 | 3 };
}

const CURATED: ExampleSpec[] = [
  {
    file: 'generic-lis2a2-serial',
    analyzer: 'Generic LIS2-A2 analyzer',
    // The dialect's vendor and model ("any", "LIS2-A2 conformant analyzer") would name the tab a third way.
    tabLabel: 'Generic LIS2-A2 analyzer',
    dialect: 'generic-lis2a2',
    transport: 'serial',
    tests: [
      { lisTestId: 'T-GLU', instrumentCode: 'GLU' },
      { lisTestId: 'T-CREA', instrumentCode: 'CREA' },
      { lisTestId: 'T-UREA', instrumentCode: 'UREA' },
      { lisTestId: 'T-ALT', instrumentCode: 'ALT' },
      { lisTestId: 'T-CHOL', instrumentCode: 'CHOL' },
      { lisTestId: 'T-CRP', instrumentCode: 'CRP' },
    ],
    notes: ['Any analyzer that follows CLSI LIS1-A / LIS2-A2 strictly: sample number in O-3, test code in component 4 of the universal test ID (^^^GLU).'],
  },
  {
    file: 'roche-cobas-e411-serial',
    analyzer: 'Roche cobas e 411',
    dialect: 'roche-cobas-e411-elecsys',
    transport: 'serial',
    tests: [
      { lisTestId: 'T-TSH', instrumentCode: '10' },
      { lisTestId: 'T-FT4', instrumentCode: '30' },
      { lisTestId: 'T-HCG', instrumentCode: '40' },
      { lisTestId: 'T-PSA', instrumentCode: '50' },
      { lisTestId: 'T-CA125', instrumentCode: '60' },
    ],
    notes: [
      'cobas e 411 host interface in "Elecsys type" records (set on the analyzer), real-time query mode.',
      'The analyzer gives up on a query after about 15 s: keep the LIS fast, or orders are refused (ORDER_REFUSED).',
      'Test codes are the analyzer\'s application numbers: check them on the analyzer and edit the mapping.',
    ],
  },
  {
    file: 'sysmex-xn-serial',
    analyzer: 'Sysmex XN',
    dialect: 'sysmex-xn',
    transport: 'serial',
    tests: [
      { lisTestId: 'T-WBC', instrumentCode: 'WBC' },
      { lisTestId: 'T-RBC', instrumentCode: 'RBC' },
      { lisTestId: 'T-HGB', instrumentCode: 'HGB' },
      { lisTestId: 'T-HCT', instrumentCode: 'HCT' },
      { lisTestId: 'T-PLT', instrumentCode: 'PLT' },
      { lisTestId: 'T-MCV', instrumentCode: 'MCV' },
    ],
    notes: [
      'Sysmex XN-L / XN series, host query mode: the analyzer asks for every tube it reads (rack^position^sample in Q-3) and takes the order only as the answer to that query.',
      'Test codes are the XN parameter names (R-3 component 5, e.g. ^^^^WBC^1).',
    ],
  },
  {
    file: 'immucor-galileo-serial',
    analyzer: 'Immucor Galileo',
    dialect: 'immucor',
    transport: 'serial',
    tests: [
      { lisTestId: 'T-ABORH', instrumentCode: 'ABORH' },
      { lisTestId: 'T-ABSCR', instrumentCode: 'ABSCR' },
      { lisTestId: 'T-XM', instrumentCode: 'Crossmatch' },
    ],
    notes: [
      'Immucor Galileo / Echo / NEO blood bank analyzers: orders can be downloaded as answers to queries or unsolicited.',
      'Orders must have sample type Blood (written as Blood^Patient in O-16).',
      'Test codes are the analyzer\'s assay names: check them on the analyzer and edit the mapping.',
    ],
  },
  {
    file: 'mindray-cl2000i-tcp',
    analyzer: 'Mindray CL-2000i',
    dialect: 'mindray-cl',
    transport: 'tcp',
    tests: [
      { lisTestId: 'T-TSH', instrumentCode: '1' },
      { lisTestId: 'T-FT4', instrumentCode: '2' },
      { lisTestId: 'T-CA125', instrumentCode: '3' },
      { lisTestId: 'T-PSA', instrumentCode: '4' },
    ],
    notes: [
      'Mindray CL-2000i / CL-2200i over TCP/IP, ASTM mode: Node-RED connects to the analyzer at ANALYZER_HOST:ANALYZER_TCP_PORT.',
      'Test codes are the analyzer\'s assay numbers (O-5 / R-3 component 1): check them on the analyzer and edit the mapping.',
    ],
  },
  {
    file: 'mindray-cl2000i-hl7-tcp',
    analyzer: 'Mindray CL-2000i (HL7)',
    dialect: 'mindray-cl-hl7',
    protocol: 'hl7',
    transport: 'tcp',
    tests: [
      { lisTestId: 'T-TSH', instrumentCode: '1' },
      { lisTestId: 'T-FT4', instrumentCode: '2' },
      { lisTestId: 'T-CA125', instrumentCode: '3' },
      { lisTestId: 'T-PSA', instrumentCode: '4' },
    ],
    notes: [
      'Mindray CL-2000i / CL-2200i over TCP/IP in HL7 mode (HL7 v2.3.1, original-mode ACKs): the analyzer asks with QRY^Q02 (bar code in QRD-8); the answer is QCK^Q02 (found or not found, which the analyzer does not acknowledge) and the order as DSR^Q03, acknowledged with ACK^Q03; results come as ORU^R01, acknowledged with ACK^R01 once journaled.',
      'An order the LIS pushes goes down as DSR^Q03 with MSH-15 P (sample information sent by the LIS unasked).',
      'The analyzer waits about 10 s for the answer to a query (the manual gives no number): keep the LIS fast.',
      'Test codes are the analyzer\'s channel numbers (OBX-3, DSP-29 and on): check them on the analyzer and edit the mapping.',
      'QC results (MSH-16 2) are never sent to the LIS: the lis-qc node "QC" judges them by Westgard\'s rules against the level, lot, mean and SD the analyzer sends with each; a rejected run holds that test\'s patient results in the Lab sidebar until a technologist accepts it. Calibration results (MSH-16 1) are counted as not for the LIS.',
    ],
    qc: { controlsPerRun: 3 },
  },
  {
    file: 'roche-cobas6800-hl7-tcp',
    analyzer: 'Roche cobas 6800',
    dialect: 'roche-cobas-6800',
    protocol: 'hl7',
    transport: 'tcp',
    tests: [
      { lisTestId: 'T-HIV', instrumentCode: 'HIV' },
      { lisTestId: 'T-HBV', instrumentCode: 'HBV' },
      { lisTestId: 'T-HCV', instrumentCode: 'HCV' },
    ],
    notes: [
      'Roche cobas 6800 / 8800 over TCP/IP with IHE Laboratory Analytical Workflow (LAW, HL7 v2.5): the analyzer asks with QBP^Q11 (sample number in QPD-3); the answer is RSP^K11 (found or not found) and the order OML^O33; results come as OUL^R22, acknowledged once journaled.',
      'Any other IHE LAW analyzer works the same way: choose its dialect (ihe-law for the profile as IHE writes it) in "HL7 messages".',
      'Test codes are written with the coding system 99ROC (`HIV^^99ROC`). The cobas 6800 reports each target (OBX-3 `HIV`, `TGT1`) and the assay\'s result rows under the order code with OBX-4 sub-IDs (`1/1`, `1/2`): map the rows the LIS wants with their sub-ID (test-mapper\'s instrument sub-code), and check every code on the analyzer.',
      'Supplemental observations (S_OTHER, S_RAW: CT values, calibration) stay with their result; QC (SPM-11 Q) is counted as not for the LIS (Lab sidebar).',
    ],
  },
];

/** The folder of examples/ an example sits in: its protocol, as Node-RED's Import > Examples menu shows it. */
export function exampleFolder(spec: Pick<ExampleSpec, 'protocol'>): 'ASTM' | 'HL7' | 'File' {
  return spec.protocol === 'hl7' ? 'HL7' : spec.protocol === 'file' ? 'File' : 'ASTM';
}

/** The example's place under examples/, without .json (`ASTM/roche-cobas-e411-serial`): the menu's path to it. */
export function examplePath(spec: Pick<ExampleSpec, 'protocol' | 'file'>): string {
  return `${exampleFolder(spec)}/${spec.file}`;
}

/** Test panels the derived examples map, by what the analyzer measures; LIS test IDs of flows/lis-catalog.json. */
const PANELS = {
  chemistry: ['T-GLU', 'T-CREA', 'T-ALT'],
  immunoassay: ['T-TSH', 'T-FT4'],
  hematology: ['T-WBC', 'T-RBC', 'T-HGB', 'T-PLT'],
  coagulation: ['T-PT', 'T-APTT', 'T-FIB'],
  urine: ['T-UALB', 'T-UCREA'],
  bloodBank: ['T-ABORH', 'T-ABSCR'],
  molecular: ['T-HIV', 'T-HBV'],
  bloodGas: ['T-NA', 'T-K', 'T-CL'],
  hba1c: ['T-HBA1C'],
} as const;

type Panel = keyof typeof PANELS;

/**
 * What each built-in analyzer measures, so its example maps tests it runs.
 * A dialect missing here (one added later) gets the chemistry panel: its
 * example is still made and runs; its comment says the codes are placeholders.
 */
const PANEL_OF: Readonly<Record<string, Panel>> = {
  'astm:roche-cobas-e411': 'immunoassay',
  'astm:horiba-pentra': 'hematology',
  'astm:horiba-yumizen': 'hematology',
  'astm:stago-sta': 'coagulation',
  'astm:abbott-architect': 'immunoassay',
  'astm:siemens-dca-vantage': 'hba1c',
  'astm:cepheid-genexpert': 'molecular',
  'astm:euroimmun-analyzer1': 'immunoassay',
  'astm:phadia-immunocap': 'immunoassay',
  'astm:hologic-panther': 'molecular',
  'astm:snibe-maglumi': 'immunoassay',
  'astm:siemens-immulite': 'immunoassay',
  'astm:ortho-vision': 'bloodBank',
  'astm:biorad-ihcom': 'bloodBank',
  'astm:beckman-access': 'immunoassay',
  'astm:sysmex-uwam': 'urine',
  'astm:roche-cobas-6000': 'immunoassay',
  'astm:roche-cobas-u411': 'urine',
  'astm:roche-urisys1100': 'urine',
  'hl7:mindray-bc-hl7': 'hematology',
  'hl7:urit-ut5160': 'hematology',
  'hl7:edan-i15': 'bloodGas',
  'hl7:siemens-clinitek': 'urine',
};

/** Where a derived example's file name or analyzer name would say the wrong thing or clash with another's. */
const OVERRIDES: Readonly<Record<string, Partial<Pick<ExampleSpec, 'file' | 'analyzer' | 'tabLabel'>>>> = {
  // The curated roche-cobas-e411-serial speaks the Elecsys type; this is the same analyzer set to the cobas type.
  'astm:roche-cobas-e411': { file: 'roche-cobas-e411-cobas-type-serial', analyzer: 'Roche cobas e 411 (cobas type)', tabLabel: 'Roche cobas e 411 (cobas type)' },
  'hl7:generic-oru': { analyzer: 'Generic HL7 analyzer', tabLabel: 'Generic HL7 analyzer' },
  'hl7:ihe-law': { analyzer: 'IHE LAW analyzer', tabLabel: 'IHE LAW analyzer (HL7)' },
};

const keyOf = (protocol: 'astm' | 'hl7' | 'file', dialect: string) => `${protocol}:${dialect}`;

/** `<vendor> <first model>`: "Sysmex U-WAM with UF-4000, UF-5000" is "Sysmex U-WAM with UF-4000". */
function analyzerName(vendor: string, model: string): string {
  const first = model.split(',')[0]!.split(' (')[0]!.split(' and ')[0]!.trim();
  return `${vendor} ${first}`;
}

function derivedNotes(protocol: 'astm' | 'hl7', label: string, dialect: string, queries: boolean): string[] {
  const kind = protocol === 'hl7' ? 'HL7' : 'ASTM';
  return [
    `${label}: the built-in ${kind} dialect \`${dialect}\` (its profile cites the manual or captures it follows).`,
    ...(queries ? ['The analyzer asks for each sample it scans; lis-get-order asks the LIS and the order goes down as the answer.'] : []),
    'The test codes of this example are placeholders (the LIS codes): set the analyzer\'s own codes in the three test-mapper nodes, as the analyzer\'s host interface manual lists them.',
  ];
}

function astmSpec(profile: DialectProfile): ExampleSpec {
  const key = keyOf('astm', profile.id);
  const transport = profile.transport.serial !== undefined ? 'serial' : 'tcp';
  return {
    file: `${profile.id}-${transport}`,
    analyzer: analyzerName(profile.vendor, profile.model),
    dialect: profile.id,
    transport,
    tests: PANELS[PANEL_OF[key] ?? 'chemistry'].map((id) => ({ lisTestId: id, instrumentCode: id.replace(/^T-/, '') })),
    notes: derivedNotes('astm', profile.label, profile.id, profile.query !== undefined && profile.order !== undefined),
    ...OVERRIDES[key],
  };
}

function hl7Spec(profile: Hl7DialectProfile): ExampleSpec {
  const key = keyOf('hl7', profile.id);
  return {
    file: `${profile.id.replace(/-hl7$/, '')}-hl7-tcp`,
    analyzer: analyzerName(profile.vendor, profile.model),
    dialect: profile.id,
    protocol: 'hl7',
    // HL7 v2 runs over MLLP, on TCP.
    transport: 'tcp',
    tests: PANELS[PANEL_OF[key] ?? 'chemistry'].map((id) => ({ lisTestId: id, instrumentCode: id.replace(/^T-/, '') })),
    notes: derivedNotes('hl7', profile.label, profile.id, profile.query !== undefined && profile.answer !== undefined),
    ...OVERRIDES[key],
  };
}

/**
 * A file example of an instrument whose sample export reports each listed
 * code: each mapped to a LIS test the example names (placeholders for the
 * site's own), with the export's notes.
 */
function namedTests(analyzer: string, pattern: string, type: string, codes: ReadonlyArray<readonly [instrumentCode: string, lisCode: string, name: string]>, notes: string[]): Pick<ExampleSpec, 'analyzer' | 'tests' | 'lisTests' | 'pattern' | 'notes'> {
  return {
    analyzer,
    pattern,
    tests: codes.map(([instrumentCode, lisCode]) => ({ lisTestId: `T-${lisCode}`, instrumentCode })),
    lisTests: codes.map(([, lisCode, name]) => ({ ID: `T-${lisCode}`, Name: name, Code: lisCode, Type: type })),
    notes,
  };
}

const MAP_YOURS = 'map each one your site runs to its LIS test.';
/** What a sample export of the allotropy suite holds, as the example's note says it. */
const codesNote = (what: string, codes: string) => `Test codes are ${what}: the sample export's ${codes}; ${MAP_YOURS}`;

/**
 * What each built-in file dialect's example maps: the test codes of the
 * instrument's own export (test/fixtures/file, the dialect's sample file) to
 * LIS tests: the catalog's where it has the test (HIV viral load, TSH, free T4,
 * CA 125); otherwise the example names its LIS test (lisTests, an ICP's
 * elements, a PCR target's Ct) for the site to replace; a unit test reads
 * every sample file in its dialect and checks each code is in it. The generic
 * CSV has no instrument, so no codes of its own: it maps the chemistry panel
 * under the LIS codes (placeholders), as the derived ASTM and HL7 examples do.
 */
const FILE_TESTS: Readonly<Record<string, Pick<ExampleSpec, 'analyzer' | 'tests' | 'lisTests' | 'pattern' | 'notes'>>> = {
  'appbio-quantstudio': {
    analyzer: 'Applied Biosystems QuantStudio 7 Flex',
    pattern: '*.txt',
    tests: [{ lisTestId: 'T-3UTR', instrumentCode: "3'UTR" }],
    lisTests: [{ ID: 'T-3UTR', Name: "3'UTR target, Ct", Code: '3UTR', Type: 'Plasma' }],
    notes: [
      'QuantStudio 6/7 Flex or 7500 "Export > Results" as text (tab-separated, `[Results]` section): one row per well, the Ct of each target; `Undetermined` is no result; standards and controls (Task STANDARD, NTC) are counted as not for the LIS (Lab sidebar).',
      "Test codes are the experiment's target names (`Target Name`): the sample export's is `3'UTR`; map each target of your assays to its LIS test.",
    ],
  },
  'appbio-quantstudio-design-analysis-xlsx': {
    analyzer: 'Applied Biosystems QuantStudio 7 Pro',
    pattern: '*.xlsx',
    tests: [{ lisTestId: 'T-QPCR-T4', instrumentCode: 'T4' }],
    lisTests: [{ ID: 'T-QPCR-T4', Name: 'T4 target, Cq', Code: 'QPCRT4', Type: 'Plasma' }],
    notes: [
      'QuantStudio Design & Analysis (or Diomni) results workbook, `.xlsx`: the first sheet from the header row starting `Well`; one row per well and target, the Cq of each; `UNDETERMINED` is no result; standards and controls (`Task`) are counted as not for the LIS (Lab sidebar); an omitted well is not sent. Set the folder-link to pass files as bytes (it does): a workbook read as text has lost them.',
      "Test codes are the experiment's target names (`Target`): the sample workbook's is `T4`; map each target of your assays to its LIS test.",
    ],
  },
  'abbott-m2000rt': {
    analyzer: 'Abbott m2000rt',
    // The instrument numbers its logs: Results.log.321, Results.log.322 ...
    pattern: '*.log*',
    tests: [{ lisTestId: 'T-HIV', instrumentCode: 'HIV0.6ml' }],
    notes: [
      'm2000rt results log (tab-separated, banner sections): the table after `Result Information`; the value is the result as the instrument reports it (`213 Copies / mL`, `< 40 Copies / mL`, `Not detected`), sent as written; controls and calibrators (`SampleType`) are counted as not for the LIS (Lab sidebar); a row whose `Status` is not `Valid` is not sent.',
      "Test codes are the assay names (`AssayName`): the sample log's `HIV0.6ml` (HIV-1 RNA, 0.6 mL protocol) is mapped to the LIS's HIV viral load; map each assay you run.",
    ],
  },
  'beckman-access-2': {
    analyzer: 'Beckman Coulter Access 2',
    pattern: '*.csv',
    // Every assay of the sample export: a sample none of whose results is mapped never reaches lis-send-results, and its file never reaches done/.
    tests: [
      { lisTestId: 'T-TSH', instrumentCode: 'fTSH2' },
      { lisTestId: 'T-FT4', instrumentCode: 'FRT4' },
      { lisTestId: 'T-FT3', instrumentCode: 'FT3' },
      { lisTestId: 'T-CA125', instrumentCode: 'OV125Ag' },
      { lisTestId: 'T-AFP', instrumentCode: 'AFP' },
      { lisTestId: 'T-HBSAG', instrumentCode: 'HBsAgV3' },
      { lisTestId: 'T-HBSAB', instrumentCode: 'HBAb3' },
      { lisTestId: 'T-HBCAB', instrumentCode: 'HBc-Ab' },
      { lisTestId: 'T-HBCM', instrumentCode: 'HBc-IgM' },
      { lisTestId: 'T-HAVM', instrumentCode: 'HAV-IgM' },
      { lisTestId: 'T-HCVAB', instrumentCode: 'HCVPLUS' },
      { lisTestId: 'T-HIVAGAB', instrumentCode: 'HIVco' },
    ],
    lisTests: [
      { ID: 'T-FT3', Name: 'Free triiodothyronine', Code: 'FT3', Type: 'Serum' },
      { ID: 'T-AFP', Name: 'Alpha-fetoprotein', Code: 'AFP', Type: 'Serum' },
      { ID: 'T-HBSAG', Name: 'Hepatitis B surface antigen', Code: 'HBSAG', Type: 'Serum' },
      { ID: 'T-HBSAB', Name: 'Anti-HBs antibody', Code: 'HBSAB', Type: 'Serum' },
      { ID: 'T-HBCAB', Name: 'Anti-HBc total antibody', Code: 'HBCAB', Type: 'Serum' },
      { ID: 'T-HBCM', Name: 'Anti-HBc IgM', Code: 'HBCM', Type: 'Serum' },
      { ID: 'T-HAVM', Name: 'Anti-HAV IgM', Code: 'HAVM', Type: 'Serum' },
      { ID: 'T-HCVAB', Name: 'Anti-HCV antibody', Code: 'HCVAB', Type: 'Serum' },
      { ID: 'T-HIVAGAB', Name: 'HIV-1/2 antigen and antibody', Code: 'HIVAGAB', Type: 'Serum' },
    ],
    notes: [
      'Access 2 results export (comma CSV, one row per result): `Sample ID`, `Test Name`, `Result`, `Units`, `Flags`, `Comp. Time`; `No Value` is no result. The export marks no QC row: add a qc rule in "Dialect changes" once you have seen how your site names its controls.',
      "Test codes are the Access assay names: every assay of the sample export is mapped, `fTSH2`, `FRT4` and `OV125Ag` to the catalog's TSH, free T4 and CA 125, the others (FT3, AFP, hepatitis and HIV serology) to LIS tests named here; map every assay the instrument runs: a sample none of whose results is mapped holds its file (stuck) until you map its tests and replay it.",
    ],
  },
  'thermo-multiskan-go': {
    analyzer: 'Thermo Scientific Multiskan GO',
    pattern: '*.csv',
    tests: [{ lisTestId: 'T-ABS', instrumentCode: 'Abs' }],
    lisTests: [{ ID: 'T-ABS', Name: 'Absorbance (ELISA OD)', Code: 'ABS', Type: 'Serum' }],
    notes: [
      'Multiskan GO plate export (SkanIt, semicolon CSV, decimal comma): a `Sample` grid of well labels and an `Abs` grid of absorbances; each well is a result of its sample; blanks, standards and controls (`Bl_`, `Std_`, `Ctrl_`) are counted as not for the LIS (Lab sidebar).',
      'The plate reader reports one measurement, `Abs`: map it to the LIS test the plate\'s assay reports (the sample export is a Babesia ELISA). Name the wells by sample number in SkanIt\'s plate layout: its own `Un_0001` labels name a well, not a sample, so such wells are held for a person with the reason (Lab sidebar: Dismiss them, or name the wells) and never sent (the sample export\'s unknowns all carry them: as shipped this example sends nothing to the LIS).',
    ],
  },
  'thermo-skanit-xlsx': {
    analyzer: 'Thermo Scientific Varioskan LUX (SkanIt 7)',
    pattern: '*.xlsx',
    tests: [{ lisTestId: 'T-ABS', instrumentCode: 'Abs' }],
    lisTests: [{ ID: 'T-ABS', Name: 'Absorbance (ELISA OD)', Code: 'ABS', Type: 'Serum' }],
    notes: [
      'SkanIt 6/7 "Measurement results" workbook, `.xlsx`: the first sheet (the first measurement step) holds an `Abs` grid of absorbances and a `Sample` grid of well labels; each well is a result of its sample, replicate wells both sent; standards, blanks and controls (`Std0001`, `Blank1`, `Ctrl…`) are counted as not for the LIS (Lab sidebar). One plate and one wavelength per file. Set the folder-link to pass files as bytes (it does).',
      "The reader reports one measurement, `Abs`: map it to the LIS test the plate's assay reports (the sample workbook is an APOE ELISA at 450 nm). Name the wells by sample number in SkanIt's plate layout: SkanIt's own `Un0001` labels name a well, not a sample, so such wells are held for a person with the reason (Lab sidebar: Dismiss them, or name the wells) and never sent (the sample workbook's unknowns all carry them: as shipped this example sends its standards and blanks aside and nothing to the LIS).",
    ],
  },
  'moldev-softmax-pro': {
    analyzer: 'Molecular Devices SpectraMax (SoftMax Pro)',
    pattern: '*.txt',
    tests: [{ lisTestId: 'T-ELISA', instrumentCode: 'AdjConc' }],
    lisTests: [{ ID: 'T-ELISA', Name: 'ELISA concentration (dilution-adjusted)', Code: 'ELISA', Type: 'Serum' }],
    notes: [
      'SoftMax Pro text export: the table of the `Samples` group (`Group: Samples`), one row per sample with its replicate wells below; the value is `AdjConc` (the mean concentration times the dilution factor); `Range?` (outside the standard curve) and `Error` (a formula SoftMax could not work out) are no result. Standards and controls are groups of their own and are not read. Your protocol names its groups and columns: set `table.startsAfter` (`Group: Unknowns`) and `layout.tests` in "Dialect changes"; SoftMax\'s Unicode export is UTF-16 (`"encoding": "utf16le"`).',
      'The test code is the column name, `AdjConc`: map it to the LIS test of the plate\'s assay.',
    ],
  },
  'varian-vista-pro': {
    analyzer: 'Varian Vista-PRO ICP-OES',
    pattern: '*.csv',
    tests: [
      { lisTestId: 'T-MN', instrumentCode: 'Mn 257.610' },
      { lisTestId: 'T-FE', instrumentCode: 'Fe 259.940' },
      { lisTestId: 'T-AL', instrumentCode: 'Al 396.152' },
    ],
    lisTests: [
      { ID: 'T-MN', Name: 'Manganese', Code: 'MN', Type: 'Other' },
      { ID: 'T-FE', Name: 'Iron', Code: 'FE', Type: 'Other' },
      { ID: 'T-AL', Name: 'Aluminium', Code: 'AL', Type: 'Other' },
    ],
    notes: [
      'ICP Expert CSV export: one row per solution and element line; `Type` tells blanks, standards and lab control samples (QC) from samples; the solution label is `<sample number>*<description>`; a `-` value with flag `x` (over range) is no result.',
      'Test codes are the element lines as the method names them (`Fe 259.940`): map each line the LIS reports.',
    ],
  },
  'senaite-two-dimension': {
    analyzer: 'Two-dimension CSV instrument',
    pattern: '*.csv',
    tests: [
      { lisTestId: 'T-MG', instrumentCode: 'Mg' },
      { lisTestId: 'T-CA', instrumentCode: 'Ca' },
    ],
    lisTests: [
      { ID: 'T-MG', Name: 'Magnesium', Code: 'MG', Type: 'Serum' },
      { ID: 'T-CA', Name: 'Calcium', Code: 'CA', Type: 'Serum' },
    ],
    notes: [
      'One row per sample, a column per test (SENAITE\'s generic two-dimension import): the header row names the tests; `-----` and `ND` are no result; an `end` row closes the table.',
      'Test codes are the column names: the sample export\'s `Mg` and `Ca` are mapped; its other columns (pest1, pest2, pest3) are held for a person until you map them, then sent from the Lab sidebar.',
    ],
  },
  'appbio-quantstudio-xlsx': namedTests('Applied Biosystems QuantStudio 12K Flex', '*.xlsx', 'Plasma', [['GeneA', 'QPCR-GENEA', 'GeneA target, Ct'], ['RefGene', 'QPCR-REF', 'Reference gene, Ct']], [
    'QuantStudio desktop "Export > Results" saved as Excel (`.xlsx`): the `Results` sheet from the header row starting `Well`; one row per well and target, the Ct in `CT`; `Undetermined` is no result; standards and controls (`Task`) are counted as not for the LIS (Lab sidebar). Set the folder-link to pass files as bytes (it does).',
    codesNote("the experiment's target names (`Target Name`)", '`GeneA` and `RefGene`'),
  ]),
  'appbio-quantstudio-genotyping': namedTests('Applied Biosystems QuantStudio 7 Flex (genotyping)', '*.txt', 'Whole blood', [['CYP19_2 Allele1 Ct', 'SNP-CYP19-A1', 'CYP19_2 allele 1 probe, Ct'], ['CYP19_2 Allele2 Ct', 'SNP-CYP19-A2', 'CYP19_2 allele 2 probe, Ct']], [
    'QuantStudio "Export > Results" as text from a genotyping run (`[Results]` section): one row per well, the Ct of each allele\'s probe (`Allele1 Ct`, `Allele2 Ct`); `Undetermined` is no result; allele controls and NTC (`Task`) are counted as not for the LIS (Lab sidebar); the genotype call (`Call`) is not sent.',
    codesNote("the SNP assay (`SNP Assay Name`) and the allele's Ct column", '`CYP19_2 Allele1 Ct` and `CYP19_2 Allele2 Ct`'),
  ]),
  'appbio-quantstudio-crt-xlsx': namedTests('Applied Biosystems QuantStudio 7 Flex (relative threshold)', '*.xlsx', 'Plasma', [['TJP-1 Rhesus', 'QPCR-TJP1R', 'TJP-1 (rhesus), Crt'], ['AqP4- Rhesus', 'QPCR-AQP4R', 'AQP4 (rhesus), Crt'], ['ANPEP-Rhesus', 'QPCR-ANPEPR', 'ANPEP (rhesus), Crt'], ['TJP-1 Human', 'QPCR-TJP1H', 'TJP-1 (human), Crt'], ['AQP4-Human', 'QPCR-AQP4H', 'AQP4 (human), Crt'], ['ANPEP-Human', 'QPCR-ANPEPH', 'ANPEP (human), Crt'], ['18S', 'QPCR-18S', '18S reference, Crt']], [
    'QuantStudio desktop "Export > Results" saved as Excel from an experiment analysed by relative threshold (`Quantification Cycle Method` `Crt`): the `Results` sheet from the header row starting `Well`; one row per well and target, the cycle in `CRT`; `Undetermined` is no result; standards and controls (`Task`) are counted as not for the LIS (Lab sidebar). Set the folder-link to pass files as bytes (it does).',
    codesNote("the experiment's target names (`Target Name`)", '`TJP-1 Rhesus`, `AqP4- Rhesus`, `ANPEP-Rhesus`, `TJP-1 Human`, `AQP4-Human`, `ANPEP-Human` and `18S`'),
  ]),
  'agilent-gen5-concentration': namedTests('Agilent BioTek Gen5 (standard curve)', '*.txt', 'Serum', [['[Concentration]', 'GEN5-CONC', 'Concentration from the standard curve']], [
    'Gen5 plate export (tab text): the sample of each well from the `Layout` grid (`Well ID` line), its concentration from the `Results` grid (`[Concentration]` line of each plate row); standards (`STD…`) and blanks (`BLK`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the calculated line\'s name (`[Concentration]`)', '`[Concentration]`'),
  ]),
  'agilent-gen5-conc-grid': namedTests('Agilent BioTek Gen5 (Conc grid)', '*.txt', 'Serum', [['Conc', 'GEN5-CGRID', 'Protein concentration from the standard curve']], [
    'Gen5 plate export (tab text) whose concentrations are a grid of their own titled `Conc` (a Lowry protein assay, say): the sample of each well from the `Layout` grid (`Well ID` line), its value from the `Conc` grid; `<0.000` or `>…` (off the curve) is sent as written; standards, blanks and controls (`STD…`, `BLK`, `POSCON`, `NEGCON`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the grid\'s title (`Conc`)', '`Conc`'),
  ]),
  'agilent-gen5-luminescence': namedTests('Agilent BioTek Gen5 (luminescence)', '*.txt', 'Serum', [['Lum', 'GEN5-LUM', 'Luminescence, RLU']], [
    'Gen5 luminescence endpoint export (tab text): the sample of each well from the `Layout` grid (`Well ID` line), its light in RLU from the `Results` grid\'s `LUM:Lum` line; the normalised line is not read; positive and negative controls (`POSCON`, `NEGCON`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the read\'s data name (`Lum`)', '`Lum`'),
  ]),
  'agilent-gen5-polarization': namedTests('Agilent BioTek Gen5 (fluorescence polarization)', '*.txt', 'Serum', [['Polarization', 'GEN5-FP', 'Fluorescence polarization, mP']], [
    'Gen5 fluorescence polarization export (tab text): the sample of each well from the `Layout` grid (`Well ID` line), its polarization in mP from the `Results` grid\'s `Polarization` line; the parallel and perpendicular lines are not read; standards, blanks and controls (`STD…`, `BLK`, `CTL…`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the calculated line\'s name (`Polarization`)', '`Polarization`'),
  ]),
  'agilent-gen5-normalized': namedTests('Agilent BioTek Gen5 (Normalized Data)', '*.txt', 'Serum', [['Normalized Data', 'GEN5-NORM', 'Normalized fluorescence']], [
    'Gen5 two-filter fluorescence export (tab text): the sample of each well from the `Layout` grid (`Well ID` line), its value from the `Results` grid\'s `Normalized Data` line; the readings, `Ratio` and `Delta` are not read; controls (`CTL…`), standards and blanks are counted as not for the LIS (Lab sidebar).',
    codesNote('the calculated line\'s name (`Normalized Data`)', '`Normalized Data`'),
  ]),
  'agilent-gen5-dna': namedTests('Agilent BioTek Gen5 (DNA, pathlength corrected)', '*.txt', 'Other', [['DNA concentration ng/uL', 'GEN5-DNA', 'dsDNA concentration, ng/µL']], [
    'Gen5 nucleic acid export of a UV plate with pathlength correction (tab text): the sample of each well from the `Layout` grid (`Well ID` line), its concentration in ng/µL from the `Results` grid\'s `DNA concentration ng/uL` line; the readings, corrected values and purity ratios are not read; blanks (`BLK`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the calculated line\'s name (`DNA concentration ng/uL`)', '`DNA concentration ng/uL`'),
  ]),
  'agilent-gen5-dapi-gfp': namedTests('Agilent BioTek Gen5 (DAPI and GFP)', '*.txt', 'Other', [['normDAPI', 'GEN5-DAPI', 'DAPI, normalised'], ['normGFP', 'GEN5-GFP', 'GFP, normalised']], [
    'Gen5 two-filter fluorescence export (tab text): the sample of each well from the `Layout` grid (`Well ID` line), two results per well from the `Results` grid\'s `normDAPI` and `normGFP` lines (each well\'s normalised reading; not the sample\'s means, which the protocol repeats in each of its wells), each its own test; positive and negative controls (`POS`, `NEG`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the calculated lines\' names', '`normDAPI` and `normGFP`'),
  ]),
  'agilent-gen5-a260': namedTests('Agilent BioTek Gen5 (A260)', '*.txt', 'Other', [['260:260', 'GEN5-A260', 'Absorbance at 260 nm']], [
    'Gen5 absorbance export of a nucleic acid plate (tab text): the sample of each well from the `Layout` grid (`Well ID` line), its absorbance from the `Results` grid\'s `260:260` line (the read step `260` at 260 nm); `OVRFLW` (above the reader\'s range) is no result, held for a person; blanks (`BLK`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the read\'s line name (`260:260`)', '`260:260`'),
  ]),
  'biorad-cfx-maestro': namedTests('Bio-Rad CFX Opus (CFX Maestro)', '*.csv', 'Plasma', [['FAM', 'QPCR-FAM', 'FAM channel, Cq'], ['VIC', 'QPCR-VIC', 'VIC channel, Cq']], [
    'CFX Maestro "Quantification Cq Results" CSV: one row per well and fluorophore, the Cq in `Cq`; `NaN` (no Cq) is no result; standards, NTC and positive/negative controls (`Content`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the fluorophores (`Fluor`; set `layout.test` to `Target` when the plate names its targets)', '`FAM` and `VIC`'),
  ]),
  'biorad-bioplex-manager-xml': namedTests('Bio-Rad Bio-Plex 200 (Bio-Plex Manager)', '*.xml', 'Serum', [['alpha', 'MFI-ALPHA', 'Analyte alpha, median FI'], ['bravo', 'MFI-BRAVO', 'Analyte bravo, median FI']], [
    'Bio-Plex Manager XML export (`File > Export > XML`): one result per measured well and analyte, the bead region\'s median fluorescence, the sample the `Label` whose member well it is; a patient\'s replicate wells are each sent; standards, controls and blanks are counted as not for the LIS (Lab sidebar); a region with no bead counted, a sample\'s well the export holds no measurement of, and a well no sample lists are held.',
    codesNote('the analytes (`AnalyteName`)', '`alpha` and `bravo`'),
  ]),
  'appbio-absolute-q': namedTests('Applied Biosystems QuantStudio Absolute Q', '*.csv', 'Plasma', [['Gene A', 'DPCR-GENEA', 'Gene A, copies/µL'], ['Gene B', 'DPCR-GENEB', 'Gene B, copies/µL']], [
    'Absolute Q well CSV: one row per well and target, `Conc. cp/uL`; each group\'s average row (`Well` `Average`, no sample) is the software\'s summary, counted as not for the LIS (Lab sidebar).',
    codesNote('the targets (`Target`)', '`Gene A` and `Gene B`'),
  ]),
  'appbio-absolute-q-summary': namedTests('Applied Biosystems QuantStudio Absolute Q (summary)', '*.csv', 'Plasma', [['TARGET 1', 'DPCR-T1', 'Target 1, copies/µL'], ['TARGET 2', 'DPCR-T2', 'Target 2, copies/µL']], [
    'Absolute Q summary CSV: a dye row over the header row `Run name`, one row per well, a column group per dye (`Target`, `Conc.`, …): each group one result, the test its `Target`, the value its `Conc.`; the software\'s `Average` row is counted as not for the LIS (Lab sidebar).',
    codesNote('the targets (each group\'s `Target`)', '`TARGET 1` and `TARGET 2`'),
  ]),
  'appbio-absolute-q-archive': namedTests('Applied Biosystems QuantStudio Absolute Q (ZIP export)', '*.zip', 'Plasma', [['TARGET 1', 'DPCR-Z1', 'Target 1, copies/µL'], ['TARGET 2', 'DPCR-Z2', 'Target 2, copies/µL']], [
    'Absolute Q run export as one ZIP archive: its member whose name ends `summary.csv` is read as the summary CSV is (a column group per dye, the `Average` row counted as not for the LIS); the other members are not read. Set the folder-link to pass files as bytes (it does).',
    codesNote('the targets (each group\'s `Target`)', '`TARGET 1` and `TARGET 2`'),
  ]),
  'appbio-absolute-q-multichannel': namedTests('Applied Biosystems QuantStudio Absolute Q (multichannel)', '*.csv', 'Plasma', [['FAM', 'DPCR-MFAM', 'FAM channel, copies/µL'], ['VIC', 'DPCR-MVIC', 'VIC channel, copies/µL'], ['ABY', 'DPCR-MABY', 'ABY channel, copies/µL'], ['JUN', 'DPCR-MJUN', 'JUN channel, copies/µL']], [
    'Absolute Q multichannel CSV: one row per sample and channel (`Channels`: a dye, or the dyes a partition was positive in together, `VIC JUN`), the value `Copies per microliter`; each sample\'s row with no channel (the partitions positive in none) is counted as not for the LIS (Lab sidebar). The four dyes are mapped here; a combination (`VIC JUN`: the partitions positive in both) waits for a person until mapped, or is left out with `validWhen` `{ "column": "Channels", "anyOf": ["FAM", "VIC", "ABY", "JUN"] }` (counted as not for the LIS).',
    codesNote('the channels (`Channels`)', '`JUN`, `VIC`, `FAM`, `VIC JUN` …'),
  ]),
  'qiagen-qiacuity': namedTests('QIAGEN QIAcuity', '*.csv', 'Plasma', [['eGFP', 'DPCR-EGFP', 'eGFP, copies/µL']], [
    'QIAcuity absolute quantification CSV (a `sep=,` line first): one row per well and target, `Conc. [cp/µL] (dPCR reaction)`; controls and NTC (`Type`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the targets (`Target (Name)`)', '`eGFP`'),
  ]),
  'qiagen-qiacuity-older': namedTests('QIAGEN QIAcuity (older export)', '*.csv', 'Plasma', [['5p', 'DPCR-5P', '5p target, copies/µL']], [
    'QIAcuity CSV with the older column names (`Target`, `Concentration (copies/µL)`); controls and NTC (`Type`) are counted as not for the LIS (Lab sidebar).',
    codesNote('the targets (`Target`)', '`5p`'),
  ]),
  'qiagen-qiacuity-copies': namedTests('QIAGEN QIAcuity (Conc. [copies/µL])', '*.csv', 'Plasma', [['CD3', 'DPCR-CD3', 'CD3, copies/µL']], [
    'QIAcuity CSV as another software version writes it (`sep=,` first): one row per well and target, the target in `Target`, the value `Conc. [copies/µL]` (its µ written by the software as a replacement character); the export marks controls in `Control type`: add a qc rule for your plate\'s names.',
    codesNote('the targets (`Target`)', '`CD3`'),
  ]),
  'msd-workbench-csv': namedTests('MSD MESO QuickPlex (Discovery Workbench)', '*.csv', 'Serum', [['Test Assay 1.0', 'MSD-ASSAY1', 'MSD assay, calculated concentration']], [
    'Discovery Workbench plate CSV (a `Plate_…` line first): one row per well and assay, `Calc. Concentration`; `NaN` is no result. The export does not mark standards (`S001`…): add a qc rule for your plate layout\'s names, or they are sent as samples.',
    codesNote('the assays (`Assay`)', '`Test Assay 1.0`'),
  ]),
  'msd-workbench-xlsx': namedTests('MSD MESO QuickPlex (Discovery Workbench, Excel)', '*.xlsx', 'Serum', [['TEST_ASSAY', 'MSD-ASSAYX', 'MSD assay, calculated concentration']], [
    'Discovery Workbench plate results saved as Excel (`.xlsx`): the sheet `Workbench data`, from its header row starting `Sample`, one row per well and assay, the value `Calc. Concentration`; `NaN` (off the curve) is no result; a well without a calculated concentration is held for a person. Set the folder-link to pass files as bytes (it does).',
    codesNote('the assays (`Assay`)', '`TEST_ASSAY`'),
  ]),
  'unchained-lunatic-csv': namedTests('Unchained Labs Lunatic', '*.csv', 'Other', [['A260 dsDNA', 'DNA-A260', 'dsDNA concentration (A260), ng/µL']], [
    'Lunatic results table CSV: one row per well, the application in `Application`, the value `A260 Concentration (ng/ul)`.',
    codesNote('the applications (`Application`)', '`A260 dsDNA`'),
  ]),
  'unchained-lunatic-xlsx': namedTests('Unchained Labs Lunatic (Excel report)', '*.xlsx', 'Other', [['Concentration', 'DNA-CONC', 'Nucleic acid concentration, ng/µL']], [
    'Lunatic report workbook (`.xlsx`): the table under `Plate ID`, one row per well, the value in the `Concentration (ng/ul)` column (one header cell, the test over its unit on a second line: the unit is split off). Set the folder-link to pass files as bytes (it does).',
    codesNote('the column name', '`Concentration`'),
  ]),
  'unchained-lunatic-report-csv': namedTests('Unchained Labs Lunatic (report CSV)', '*.csv', 'Other', [['Concentration', 'DNA-CONCR', 'Nucleic acid concentration, ng/µL']], [
    'Lunatic report saved as CSV (software 8): the Info rows above, the table from its header row starting `Plate ID`, one row per well, the value `Concentration` over `(ng/ul)` in one header cell (the unit split off); a well without a sample name is held for a person.',
    codesNote('the column name', '`Concentration`'),
  ]),
  'unchained-lunatic-protein-csv': namedTests('Unchained Labs Lunatic (protein)', '*.csv', 'Other', [['Protein (Turbidity)', 'PROT-A280', 'Protein concentration (A280), mg/mL']], [
    'Lunatic results table CSV of a protein application: one row per well, `Sample Name`, the test the `Application`, the value `Concentration (mg/ml)` (its unit split off); a blank\'s `N/A` is no result.',
    codesNote('the applications (`Application`)', '`Protein (Turbidity)`'),
  ]),
  'unchained-lunatic-spectrum-csv': namedTests('Unchained Labs Lunatic (with spectrum)', '*.csv', 'Other', [['dsDNA (Single point)', 'DNA-A260', 'dsDNA concentration (A260), ng/uL']], [
    'Lunatic results table CSV exported with the spectrum: one row per well, `Sample name`, the test the `Application`, the value `Concentration (ng/ul)` (its unit split off); the absorbance columns of the spectrum are not read.',
    codesNote('the applications (`Application`)', '`dsDNA (Single point)`'),
  ]),
  'thermo-nanodrop-8000': namedTests('Thermo Scientific NanoDrop 8000', '*.txt', 'Other', [['DNA-50', 'ND-DNA', 'dsDNA concentration (NanoDrop)']], [
    'NanoDrop 8000 nucleic acid report (tab text): one row per sample, `Conc.` in `Units`; the reference row is held for a person.',
    codesNote('the nucleic-acid types (`NA Type`)', '`DNA-50`'),
  ]),
  'thermo-nanodrop-8000-protein': namedTests('Thermo Scientific NanoDrop 8000 (protein A280)', '*.txt', 'Other', [['conc.', 'ND-PROT', 'Protein concentration (A280), mg/mL']], [
    'NanoDrop 8000 protein A280 report (tab text): one row per sample, the value `conc.`; rows without a sample ID are held for a person.',
    codesNote('the column name', '`conc.`'),
  ]),
  'thermo-nanodrop-8000-custom': namedTests('Thermo Scientific NanoDrop 8000 (custom method)', '*.txt', 'Other', [['Conc.', 'ND-CUSTOM', 'Concentration (NanoDrop custom method)']], [
    'NanoDrop 8000 custom method report (tab text, absorbances in `nm 1`/`Abs 1` pairs, no type column): one row per sample, `Conc.` in `Units`; a measured 0.000 is sent as a result.',
    codesNote('the column name', '`Conc.`'),
  ]),
  'thermo-nanodrop-eight': namedTests('Thermo Scientific NanoDrop Eight', '*.txt', 'Other', [['dsDNA', 'ND8-DSDNA', 'dsDNA concentration (NanoDrop), ng/µL']], [
    'NanoDrop Eight export (tab text, header row `Sample Id`): one row per measurement, the sample number is `Sample Name`, the value `ng/µL`, the test the application named in the `Application:` line above the table (a file without it is refused); a row without a name is held for a person.',
    codesNote('the applications (the `Application:` line)', '`dsDNA`'),
  ]),
  'thermo-nanodrop-eight-date-first': namedTests('Thermo Scientific NanoDrop Eight (Date first)', '*.txt', 'Other', [['RNA', 'ND8D-RNA', 'RNA concentration (NanoDrop), ng/µL']], [
    'NanoDrop Eight export whose header row starts with `Date` (decimal comma): the sample number is `Sample`, the value `ng/µL`, the test the `Application:` line\'s.',
    codesNote('the applications (the `Application:` line)', '`RNA`'),
  ]),
  'thermo-nanodrop-eight-decimal-comma': namedTests('Thermo Scientific NanoDrop Eight (decimal comma)', '*.txt', 'Other', [['dsDNA', 'ND8C-DSDNA', 'dsDNA concentration (NanoDrop), ng/µL']], [
    'NanoDrop Eight export (header row `Sample Id`) from a PC that writes a decimal comma (`-0,412`): as the export with a decimal point otherwise; a row without a name is held for a person.',
    codesNote('the applications (the `Application:` line)', '`dsDNA`'),
  ]),
  'thermo-nanodrop-one-csv': namedTests('Thermo Scientific NanoDrop One', '*.csv', 'Other', [['dsDNA', 'ND1-CONC', 'Nucleic acid concentration, ng/µL']], [
    'NanoDrop One nucleic acid CSV: one row per measurement, `Sample Name`, `Nucleic Acid(ng/uL)` (its unit split from the header); the test is the application, the first word of the file\'s name as the software writes it (`dsDNA 7_19_2023 3_27_29 PM.csv`): a file renamed without it is refused.',
    codesNote('the applications (the file name\'s first word)', '`dsDNA`'),
  ]),
  'thermo-nanodrop-one-xlsx': namedTests('Thermo Scientific NanoDrop One (Excel)', '*.xlsx', 'Other', [['Nucleic Acid', 'ND1X-CONC', 'Nucleic acid concentration, ng/µL']], [
    'NanoDrop One nucleic acid workbook (`.xlsx`), the CSV\'s columns; the test is the value column, `Nucleic Acid`, its unit split from the header. Set the folder-link to pass files as bytes (it does).',
    codesNote('the column name', '`Nucleic Acid`'),
  ]),
  'thermo-qubit-4-csv': namedTests('Thermo Fisher Qubit 4', '*.csv', 'Other', [['1x dsDNA High Sensitivity', 'QB-DSDNA-HS', 'dsDNA HS (Qubit), original sample']], [
    'Qubit 4 run data CSV: one row per tube, the sample in `Test Name`, the value `Original sample conc.` (its unit the second `Units` column).',
    codesNote('the assays (`Assay Name`)', '`1x dsDNA High Sensitivity`'),
  ]),
  'thermo-qubit-4-xlsx': namedTests('Thermo Fisher Qubit 4 (Excel)', '*.xlsx', 'Other', [['1x dsDNA High Sensitivity', 'QBX-DSDNA-HS', 'dsDNA HS (Qubit), original sample']], [
    'Qubit 4 run data workbook (`.xlsx`), the CSV\'s columns. Set the folder-link to pass files as bytes (it does).',
    codesNote('the assays (`Assay Name`)', '`1x dsDNA High Sensitivity`'),
  ]),
  'thermo-qubit-flex-csv': namedTests('Thermo Fisher Qubit Flex', '*.csv', 'Other', [['RNA BR', 'QF-RNA-BR', 'RNA BR (Qubit Flex), original sample']], [
    'Qubit Flex run data CSV: one row per tube, `Sample Name`, the value `Original Sample Conc.` in `Original sample conc. units`.',
    codesNote('the assays (`Assay Name`)', '`RNA BR`'),
  ]),
  'thermo-qubit-flex-xlsx': namedTests('Thermo Fisher Qubit Flex (Excel)', '*.xlsx', 'Other', [['1X dsDNA HS', 'QFX-DSDNA-HS', 'dsDNA HS (Qubit Flex), original sample']], [
    'Qubit Flex run data workbook (`.xlsx`), the CSV\'s columns. Set the folder-link to pass files as bytes (it does).',
    codesNote('the assays (`Assay Name`)', '`1X dsDNA HS`'),
  ]),
  'thermo-genesys-150': namedTests('Thermo Scientific GENESYS 150', '*.csv', 'Other', [['Absorbance', 'UV-ABS', 'Absorbance (fixed wavelength)']], [
    'GENESYS 150 Fixed export (UTF-16 text with tabs, named .csv): one row per sample, `Well Position` (the name typed on the instrument), `Absorbance`.',
    codesNote('the column name', '`Absorbance`'),
  ]),
  'thermo-visionlite-fixed': namedTests('Thermo Scientific VISIONlite Fixed', '*.csv', 'Other', [['A260', 'UV-A260', 'Absorbance at 260 nm']], [
    'VISIONlite Fixed results (UTF-16 text with tabs, named .csv): one row per sample, a column per wavelength (`A260`; add your method\'s others to `layout.tests`).',
    codesNote('the wavelength columns', '`A260`'),
  ]),
  'thermo-visionlite-quant': namedTests('Thermo Scientific VISIONlite Quant', '*.csv', 'Other', [['Concentration [mg/L]', 'UV-QUANT', 'Concentration (VISIONlite Quant), mg/L']], [
    'VISIONlite Quant results CSV: one row per sample, `Concentration [mg/L]`.',
    codesNote('the column name', '`Concentration [mg/L]`'),
  ]),
  'thermo-visionlite-fixed-csv': namedTests('Thermo Scientific VISIONlite Fixed (CSV)', '*.csv', 'Other', [['500 nm', 'UV-A500', 'Absorbance at 500 nm'], ['600 nm', 'UV-A600', 'Absorbance at 600 nm']], [
    'VISIONlite Fixed results CSV: one row per sample, a column per wavelength (`500 nm   [A]`), each a test, its code the wavelength; a method with a `Result` equation is read with `thermo-visionlite-fixed-result`.',
    codesNote('the wavelengths', '`500 nm` and `600 nm`'),
  ]),
  'thermo-visionlite-fixed-result': namedTests('Thermo Scientific VISIONlite Fixed (Result)', '*.csv', 'Other', [['Result', 'UV-RESULT', 'VISIONlite Fixed method result']], [
    'VISIONlite Fixed results CSV of a method with an equation: one row per sample, the value `Result`; the wavelengths\' absorbances are its inputs and are not sent.',
    codesNote('the column name', '`Result`'),
  ]),
  'moldev-softmax-pro-unknowns': namedTests('Molecular Devices SpectraMax (SoftMax Pro template)', '*.txt', 'Serum', [['MeanResult', 'ELISA-MEAN', 'ELISA result (mean of replicates)']], [
    'SoftMax Pro Unicode text export (UTF-16): the table of the `Unknowns` group, one row per sample with its replicate wells below, the value `MeanResult`, as SoftMax\'s own templates name them; a protocol with other names sets them in "Dialect changes" (`table.startsAfter`, `layout.tests`).',
    codesNote('the column name', '`MeanResult`'),
  ]),
  'luminex-xponent': namedTests('Luminex xPONENT (FLEXMAP 3D, MAGPIX)', '*.csv', 'Serum', [['alpha', 'MFI-ALPHA', 'Analyte alpha, net MFI'], ['bravo', 'MFI-BRAVO', 'Analyte bravo, net MFI']], [
    'xPONENT batch CSV: the `Net MFI` section (titled `"DataType:","Net MFI"`), one row per well, each analyte (bead region) a test, `Total Events` not one; `NaN` (no bead counted) is held as no result; `Background`, `Standard…` and `Control…` samples are counted as not for the LIS (Lab sidebar).',
    codesNote('the analytes (the section\'s column names)', '`alpha` and `bravo`'),
  ]),
  'luminex-xponent-average': namedTests('Luminex xPONENT (Avg Net MFI)', '*.csv', 'Serum', [['6P_PBS_1_day1', 'MFI-6P-D1', 'Analyte 6P PBS day 1, average net MFI']], [
    'xPONENT batch CSV read at its `Avg Net MFI` section (titled `"DataType:","Avg Net MFI"`), as an INTELLIFLEX writes it: one row per sample, the net MFI averaged over its replicate wells, each analyte a test, `Total Events` not one; `NaN` is held as no result; `Background`, `Standard…` and `Control…` samples are counted as not for the LIS (Lab sidebar).',
    codesNote('the analytes (the section\'s column names)', '`6P_PBS_1_day1`'),
  ]),
  'luminex-intelliflex': namedTests('Luminex INTELLIFLEX', '*.csv', 'Serum', [['R25: RP1', 'MFI-R25', 'Bead region 25, average MFI'], ['R27: RP1', 'MFI-R27', 'Bead region 27, average MFI']], [
    'INTELLIFLEX results CSV: one row per well, the sample `SAMPLE ID`; each analyte\'s `… AVERAGE MFI` column is its result, the test the bead region and reporter (`R25: RP1`), its other statistics not read; `NaN` is held as no result; `Background`, `Standard…` and `Control…` samples are counted as not for the LIS (Lab sidebar).',
    codesNote('the bead regions (`R25: RP1`, the header\'s start)', '`R25: RP1` to `R77: RP2`'),
  ]),
  'moldev-softmax-pro-groups': namedTests('Molecular Devices SpectraMax (SoftMax Pro, every group)', '*.txt', 'Serum', [['MeanResult', 'ELISA-GRP', 'ELISA result (mean of replicates)']], [
    'SoftMax Pro Unicode text export (UTF-16), every `Group:` but the standard curve\'s (`Std`, `Standards`), each from its own header, one row per sample with its replicate wells below; the values each of `MeanResult`, `AvgConc`, `AdjConc`, `MeanResults` the group has, each its own test; groups of controls (`Ctrl`, `LOQ`, `Positive control`, `PositiveControl`…) and matrix spikes (`Matrix_Spike_1`) are counted as not for the LIS (Lab sidebar); `Range?` (outside the curve) and `Error` are held as no result.',
    codesNote('the mean column\'s name', '`MeanResult`'),
  ]),
  'moldev-softmax-pro-values': namedTests('Molecular Devices SpectraMax (SoftMax Pro, no standard curve)', '*.txt', 'Other', [['MeanValue', 'SMP-MEAN', 'Plate reading (mean of replicate wells)']], [
    'SoftMax Pro Unicode text export (UTF-16) of a protocol without a standard curve: every `Group:` but a standard curve\'s, each from its own header, one row per sample with its replicate wells below; the value the group\'s `MeanValue` (the mean of its wells\' readings; a group without it refuses the file); `PositiveControl` and `NegativeControl` groups are counted as not for the LIS (Lab sidebar). A protocol with a curve (`MeanResult`) is `moldev-softmax-pro-groups`\'s.',
    codesNote('the mean column\'s name', '`MeanValue`'),
  ]),
  'moldev-softmax-pro-well-conc': namedTests('Molecular Devices SpectraMax (SoftMax Pro, nucleic acid per well)', '*.txt', 'Other', [['Concentration', 'DNA-CONC', 'Nucleic acid concentration (A260), ng/µL']], [
    'SoftMax Pro Unicode text export (UTF-16) of a nucleic-acid quantitation protocol (a micro-volume plate): every group but a standard curve\'s, each well its own `Concentration (ng/uL)` (the unit split off), each well a result of the sample named on its first well\'s row (its replicate wells below, the sample cell empty: `layout.replicatesBelow`); `Range` is not read.',
    codesNote('the column\'s name', '`Concentration`'),
  ]),
  'moldev-softmax-pro-groups-utf8': namedTests('Molecular Devices SpectraMax (SoftMax Pro, every group, UTF-8 text)', '*.txt', 'Serum', [['MeanResult', 'ELISA-GRP', 'ELISA result (mean of replicates)']], [
    'SoftMax Pro text export in 8-bit text (UTF-8 or ASCII, not the Unicode export), read as `moldev-softmax-pro-groups` reads the UTF-16 one: every group but the standard curve\'s, the value the group\'s `MeanResult`, `AvgConc`, `AdjConc` or `MeanResults`; groups of controls (`Control`…) and matrix spikes are counted as not for the LIS (Lab sidebar).',
    codesNote('the mean column\'s name', '`MeanResult`'),
  ]),
};

/** The folder a file example watches by default: its own, so two imported side by side never take each other's files. */
export function defaultFolder(dialect: string): string {
  return `/var/lib/lis-bridge/${dialect}/in`;
}

function fileSpec(profile: FileDialectProfile): ExampleSpec {
  const known = FILE_TESTS[profile.id];
  const placeholders = ['T-GLU', 'T-CREA', 'T-ALT'].map((id) => ({ lisTestId: id, instrumentCode: id.replace(/^T-/, '') }));
  return {
    file: `${profile.id}-folder`,
    analyzer: known?.analyzer ?? analyzerName(profile.vendor, profile.model),
    dialect: profile.id,
    protocol: 'file',
    transport: 'folder',
    pattern: known?.pattern ?? '*.csv',
    tests: known?.tests ?? placeholders,
    ...(known?.lisTests ? { lisTests: known.lisTests } : {}),
    notes: [
      `${profile.label}: the built-in file dialect \`${profile.id}\`${known ? ' (its profile cites the instrument\'s sample export it was tested with)' : ''}.`,
      ...(known?.notes ?? [
        'The test codes of this example are placeholders (the LIS codes): the file\'s `Test` column holds the instrument\'s own codes; set them in the test-mapper node. Shape the file\'s columns in "file message" (paste an export: the results table shows what is read).',
      ]),
    ],
  };
}

/**
 * A derived example whose file or analyzer name an earlier one has (a second
 * dialect of one analyzer, an HL7 mode of an ASTM analyzer) takes its protocol,
 * then its dialect, into the name: a dialect added later needs no entry in
 * OVERRIDES to get an example, only to get a better name.
 */
function distinct(spec: ExampleSpec, taken: { files: Set<string>; analyzers: Set<string> }): ExampleSpec {
  const protocol = spec.protocol ?? 'astm';
  let { file, analyzer } = spec;
  if (taken.files.has(file)) file = `${spec.dialect}-${protocol}-${spec.transport}`;
  if (taken.analyzers.has(analyzer)) analyzer = `${spec.analyzer} (${protocol === 'file' ? 'file export' : protocol.toUpperCase()})`;
  if (taken.analyzers.has(analyzer)) analyzer = `${spec.analyzer} (${spec.dialect})`;
  taken.files.add(file);
  taken.analyzers.add(analyzer);
  return { ...spec, file, analyzer };
}

/**
 * Every example: the curated ones first, in the order they always had (their
 * default ports stay where they were), then one per other ASTM dialect and one
 * per other HL7 dialect, in the registries' order. File names and analyzer
 * names are unique: a clash left is an error here, not two flows fighting over one name.
 */
export function examplesFor(astm: readonly DialectProfile[], hl7: readonly Hl7DialectProfile[], file: readonly FileDialectProfile[] = []): ExampleSpec[] {
  const curated = new Set(CURATED.map((s) => keyOf(s.protocol ?? 'astm', s.dialect)));
  const taken = { files: new Set(CURATED.map((s) => s.file)), analyzers: new Set(CURATED.map((s) => s.analyzer)) };
  const derived = [
    ...astm.filter((p) => !curated.has(keyOf('astm', p.id))).map(astmSpec),
    ...hl7.filter((p) => !curated.has(keyOf('hl7', p.id))).map(hl7Spec),
    // Last: a file example has no port, so it moves no other example's defaults.
    ...file.map(fileSpec),
  ].map((spec) => distinct(spec, taken));
  const all = [...CURATED, ...derived];
  for (const field of ['file', 'analyzer'] as const) {
    const seen = new Set<string>();
    for (const s of all) {
      const value = field === 'file' ? s.file.toLowerCase() : s.analyzer;
      if (seen.has(value)) throw new Error(`two examples have the ${field} ${JSON.stringify(value)}: give one an entry in OVERRIDES (demo/example-specs.ts)`);
      seen.add(value);
    }
  }
  return all;
}

/** The seven examples written by hand, by their dialect; the rest are derived. */
export const CURATED_FILES: readonly string[] = CURATED.map((s) => s.file);

export const EXAMPLES: ExampleSpec[] = examplesFor(PROFILES, HL7_PROFILES, FILE_PROFILES);
