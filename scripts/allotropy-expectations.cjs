#!/usr/bin/env node
/**
 * Compact expectations for the file kind's conformance suite, from allotropy's expected output.
 *
 *   node scripts/allotropy-expectations.cjs /tmp/allotropy
 *
 * The argument is a checkout of github.com/Benchling-Open-Source/allotropy (MIT) at the commit named in
 * test/fixtures/allotropy/SOURCES.md. For each input file copied to test/fixtures/allotropy/<parser>/<file>, it
 * reads allotropy's expected Allotrope Simple Model JSON (tests/parsers/<parser>/testdata/<file stem>.json) and
 * writes test/fixtures/allotropy/expected.json: per file, the field a LIS receives (`field`, its JSON path in
 * `path`) and `results`, a list of [sample identifier, test code, value, unit, well]. A sample identifier that
 * allotropy made up from the plate and the well (`Plate 1 A1`, `COS384ft_A1`: the file names no sample) is
 * written null, with `wellsOnly: true`: a well position is never a sample number. No dependencies; plain Node.
 * allotropy writes Python's NaN and Infinity in its JSON: they are read as the strings "NaN" and "Infinity".
 */
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'allotropy');

const QPCR = { field: 'cycle threshold result (qPCR)', from: 'measurement', test: 'target',
  path: 'qpcr aggregate document.qpcr document[].measurement aggregate document.measurement document[].processed data aggregate document.processed data document[].cycle threshold result (qPCR)' };
const DPCR = { field: 'number concentration', from: 'measurement', test: 'target',
  path: 'dPCR aggregate document.dPCR document[].measurement aggregate document.measurement document[].processed data aggregate document.processed data document[].number concentration' };
const PR_M = 'plate reader aggregate document.plate reader document[].measurement aggregate document.measurement document[].';
const PR_C = 'plate reader aggregate document.calculated data aggregate document.calculated data document[] (calculated data name = ';
const calc = (name, root = PR_C) => ({ field: name, from: 'calculated', test: 'name', path: `${root}${JSON.stringify(name)}).calculated result` });
const meas = (field, test = 'wavelength', root = PR_M) => ({ field, from: 'measurement', test, path: root + field });
const MAP_C = 'multi analyte profiling aggregate document.calculated data aggregate document.calculated data document[] (calculated data name = ';
const SP_M = 'spectrophotometry aggregate document.spectrophotometry document[].measurement aggregate document.measurement document[].';

/** Per parser: the LIS result field (default), and per file where it differs (a list: a field per test). */
const FIELDS = {
  appbio_quantstudio: QPCR,
  appbio_quantstudio_designandanalysis: QPCR,
  cfxmaestro: QPCR,
  // The multichannel export names no target: each row is a dye or a dye combination (`VIC JUN`), its Channels cell.
  appbio_absolute_q: { ...DPCR, files: { 'Appbio_AbsoluteQ_multichannel.csv': { ...DPCR, test: 'dye' } } },
  qiacuity_dpcr: DPCR,
  agilent_gen5: {
    'absorbance/endpoint_stdcurve_singleplate.txt': calc('[Concentration]'),
    'absorbance/Lowry_Protein_Assay_no_results_matrix.txt': calc('Conc'),
    'fluorescence/endpoint_singleplate_filter.txt': calc('[Concentration]'),
    'luminescence/endpoint_singleplate.txt': meas('luminescence', 'const:Lum'),
    'absorbance/endpoint_wavelength_measurement_labels.txt': meas('absorbance'),
    'absorbance/010307_114129_BNCH654563_stdcurve_singleplate01.txt': calc('[Concentration]'),
    'absorbance/endpoint_stdcurve_singleplate_2.txt': calc('[Concentration]'),
    'absorbance/Kinetic_Analysis_Mean_Slope_and_Standard_Curve_tab.txt': calc('[Concentration]'),
    'fluorescence/Fluorescamine_Protein_Quantitation_no_results_matrix.txt': calc('Conc'),
    'fluorescence/alphalisa_test_2.txt': calc('[Concentration]'),
    'fluorescence/alphalisa_endpoint_singleplate.txt': calc('[Concentration]'),
    'fluorescence/endpoint_single_plate_example.txt': calc('[Concentration]'),
    'absorbance/endpoint_pathlength_correct_singleplate.txt': calc('DNA concentration ng/uL'),
    'fluorescence/endpoint_fluorescence_polarization.txt': calc('Polarization'),
    // Ratio and Delta compare a well's two readings; Normalized Data, the reading normalised, is the result.
    'fluorescence/endpoint_singleplate_filter_withStepLabel_withCalculatedValues.txt': calc('Normalized Data'),
    'fluorescence/endpoint_singleplate_filter_withoutStepLabel_withCalculatedValues.txt': calc('Normalized Data'),
    // Two tests per well, each its own calculated line (the sample's means repeat in each of its wells: not those).
    'fluorescence/endpoint_singleplate.txt': [calc('normDAPI'), calc('normGFP')],
    // No calculated value: the absorbance read at 260 nm is the result.
    'absorbance/absorbance_error_document_example.txt': meas('absorbance'),
  },
  bmg_labtech_smart_control: meas('fluorescence'),
  bmg_mars: meas('absorbance'),
  moldev_softmax_pro: {
    'softmaxpro_example_group_with_missing_calc_column.txt': null,
    'MD_SMP_absorbance_endpoint_partial_plate_example01.txt': calc('MeanResult'),
    'MD_SMP_absorbance_endpoint_example01.txt': calc('AvgConc'),
    'group_cols_with_int_sample_names.txt': calc('MeanResult'),
    'group_with_partial_rows.txt': calc('MeanResult'),
    'MD_SMP_absorbance_endpoint_example02.txt': calc('AvgConc'),
    'MD_SMP_absorbance_endpoint_example04.txt': calc('MeanValue'),
    'MD_SMP_absorbance_endpoint_example05.txt': calc('MeanValue'),
    'MD_SMP_absorbance_endpoint_partial_plate_example02.txt': calc('MeanResult'),
    'MD_SMP_absorbance_endpoint_partial_plate_example04.txt': calc('MeanResult'),
    'MD_SMP_absorbance_endpoint_partial_plate_example05.txt': calc('MeanResult'),
    'MD_SMP_fluorescence_endpoint_example06.txt': calc('MeanValue'),
    'MD_SMP_fluorescence_endpoint_example07.txt': calc('MeanValue'),
    'MD_SMP_fluorescence_endpoint_partial_plate_example01.txt': calc('MeanResult'),
    'MD_SMP_fluorescence_endpoint_partial_plate_example02.txt': calc('MeanResult'),
    'MD_SMP_luminescence_endpoint_example08.txt': calc('MeanValue'),
    'MD_SMP_luminescence_endpoint_example09.txt': calc('MeanValue'),
    'MD_SMP_luminescence_endpoint_partial_plate_example01.txt': calc('MeanResult'),
    'MD_SMP_luminescence_endpoint_partial_plate_example02.txt': calc('MeanResult'),
    'softmaxpro_example_reduced.txt': calc('MeanResult'),
    'MD_SMP_absorbance_endpoint_partial_plate_example03.txt': calc('Concentration (ng/uL)'),
  },
  perkin_elmer_envision: meas('absorbance', 'const:Abs'),
  revvity_kaleido: meas('absorbance'),
  tecan_magellan: meas('absorbance'),
  thermo_skanit: {
    'skanit_data.xlsx': meas('absorbance'),
    'multi-plate_example01.xlsx': meas('absorbance'),
    'luciferase_assay_example.xlsx': meas('luminescence', 'const:Lum'),
  },
  methodical_mind: meas('luminescence', 'const:ECL'),
  // allotropy writes the sample as <Sample>_<Well> (S001_A01): the file's Sample column is the part before.
  msd_workbench: { ...calc('Calc. Concentration', 'plate reader aggregate document.calculated data aggregate document.calculated data document[] (calculated data name = '), wellSuffix: true },
  unchained_labs_lunatic_stunner: calc('Concentration'),
  // allotropy exports no concentration for Bio-Plex: the bead region's median fluorescence is the result it gives.
  biorad_bioplex_manager: { field: 'fluorescence median role', from: 'analyte', test: 'analyte', path: 'multi analyte profiling aggregate document.multi analyte profiling document[].measurement aggregate document.measurement document[].analyte aggregate document.analyte document[].statistics aggregate document.statistics document[].statistic dimension aggregate document.statistic dimension document[].statistical value (has statistic datum role = "median role")' },
  luminex_intelliflex: { ...calc('Avg Net MFI', MAP_C), test: 'analyte' },
  luminex_xponent: { ...calc('Net MFI', MAP_C), test: 'analyte' },
  thermo_fisher_nanodrop_8000: meas('mass concentration', 'experiment', SP_M + 'processed data aggregate document.processed data document[].'),
  thermo_fisher_nanodrop_eight: meas('mass concentration', 'experiment', SP_M + 'processed data aggregate document.processed data document[].'),
  thermo_fisher_nanodrop_one: meas('mass concentration', 'experiment', SP_M + 'processed data aggregate document.processed data document[].'),
  thermo_fisher_qubit4: meas('original sample concentration', 'experiment', SP_M + 'sample document.custom information document.'),
  thermo_fisher_qubit_flex: meas('original sample concentration', 'experiment', SP_M + 'sample document.custom information document.'),
  thermo_fisher_genesys_on_board: meas('absorbance', 'const:Abs', SP_M),
  thermo_fisher_visionlite: {
    'Thermo_VISIONlite_example_quant.csv': meas('mass concentration', 'const:Quant', SP_M + 'processed data aggregate document.processed data document[].'),
    'Fixed_tab_sep.csv': meas('absorbance', 'wavelength', SP_M),
    'Thermo_VISIONlite_example_fixed.csv': meas('absorbance', 'wavelength', SP_M),
    'Thermo_VISIONlite_example_multiple_wavelengths_fixed.csv': meas('absorbance', 'wavelength', SP_M),
    // The Fixed method's Result (its equation over the wavelengths read) is the answer; the absorbances are its inputs.
    'Fixed_with_Result_Multi.csv': calc('Result', 'spectrophotometry aggregate document.calculated data aggregate document.calculated data document[] (calculated data name = '),
  },
};

function load(file) {
  // Python's json writes NaN, Infinity and -Infinity bare; read them as strings.
  const text = fs.readFileSync(file, 'utf8').replace(/(?<=[:[,]\s*)-?(?:NaN|Infinity)(?=\s*[,}\]])/g, '"$&"');
  return JSON.parse(text);
}

const isQuantity = (o) => o && typeof o === 'object' && !Array.isArray(o) && 'value' in o && 'unit' in o;

function firstKey(o, key) {
  if (Array.isArray(o)) { for (const x of o) { const r = firstKey(x, key); if (r !== undefined) return r; } return undefined; }
  if (o && typeof o === 'object') {
    if (key in o) return o[key];
    for (const v of Object.values(o)) { const r = firstKey(v, key); if (r !== undefined) return r; }
  }
  return undefined;
}

/** Measurement documents (with their analytes) and calculated data documents, linked by identifier. */
function readAsm(json) {
  const measurements = []; const byId = new Map(); const calculated = [];
  const walk = (o, ctx) => {
    if (Array.isArray(o)) { o.forEach((x) => walk(x, ctx)); return; }
    if (!o || typeof o !== 'object') return;
    if ('measurement identifier' in o) {
      const s = o['sample document'] || {};
      const m = { id: o['measurement identifier'], sample: s['sample identifier'], well: s['well location identifier'] ?? s['location identifier'],
        plate: s['well plate identifier'], target: o['target DNA description'], experiment: ctx.experiment,
        wavelength: firstKey(o['device control aggregate document'], 'detector wavelength setting'),
        dye: firstKey(o['device control aggregate document'], 'reporter dye setting'), values: {}, analytes: [] };
      const take = (doc) => { for (const [k, v] of Object.entries(doc || {})) if (isQuantity(v)) m.values[k] = v; };
      take(o); take(s); take(s['custom information document']);
      for (const p of (o['processed data aggregate document'] || {})['processed data document'] || []) {
        take(p); if (p['processed data identifier']) byId.set(p['processed data identifier'], { m });
      }
      for (const a of (o['analyte aggregate document'] || {})['analyte document'] || []) {
        const an = { id: a['analyte identifier'], name: a['analyte name'], values: {} };
        for (const [k, v] of Object.entries(a)) if (isQuantity(v)) an.values[k] = v;
        // Bio-Plex: the bead region's fluorescence statistics (median, mean, ...), by role.
        for (const st of (a['statistics aggregate document'] || {})['statistics document'] || []) {
          for (const d of (st['statistic dimension aggregate document'] || {})['statistic dimension document'] || []) {
            const q = d['statistical value'];
            if (isQuantity(q) && q['has statistic datum role']) an.values[`${st['statistical feature']} ${q['has statistic datum role']}`] = q;
          }
        }
        m.analytes.push(an); if (an.id) byId.set(an.id, { m, an });
      }
      measurements.push(m); byId.set(m.id, { m });
      return;
    }
    if ('calculated data name' in o) {
      const src = ((o['data source aggregate document'] || {})['data source document'] || []).map((d) => d['data source identifier']);
      calculated.push({ id: o['calculated data identifier'], name: o['calculated data name'], result: o['calculated result'] || o['calculated datum'], src });
      return;
    }
    const next = typeof o['experiment type'] === 'string' ? { ...ctx, experiment: o['experiment type'] } : ctx;
    for (const v of Object.values(o)) walk(v, next);
  };
  walk(json, {});
  const calcById = new Map(calculated.map((c) => [c.id, c]));
  const resolve = (id, seen) => {
    if (byId.has(id)) return [byId.get(id)];
    const c = calcById.get(id);
    if (!c || seen.has(id)) return [];
    seen.add(id);
    return c.src.flatMap((s) => resolve(s, seen));
  };
  for (const c of calculated) c.sources = c.src.flatMap((s) => resolve(s, new Set()));
  return { measurements, calculated };
}

/** A sample identifier allotropy built from the plate and the well (the file names none). */
function madeUp(sample, plate, well) {
  if (sample == null || well == null) return false;
  const s = String(sample); const w = String(well);
  if (!s.endsWith(w)) return false;
  const head = s.slice(0, s.length - w.length).replace(/[ _]$/, '');
  return head === '' || (plate != null && head === String(plate));
}

const num = (v) => (typeof v === 'number' ? v : v == null ? null : String(v));
const unitOf = (u) => (u && u !== '(unitless)' ? u : null);

function testOf(spec, m, an, c) {
  if (spec.test.startsWith('const:')) return spec.test.slice(6);
  if (spec.test === 'target') return m.target ?? null;
  if (spec.test === 'dye') return m.dye ?? null;
  if (spec.test === 'wavelength') return m.wavelength ? `${m.wavelength.value}${m.wavelength.unit}` : null;
  if (spec.test === 'experiment') return m.experiment ?? null;
  if (spec.test === 'analyte') return an ? an.name : null;
  if (spec.test === 'name') return c ? c.name : null;
  return null;
}

function expectations(json, spec) {
  const { measurements, calculated } = readAsm(json);
  const rows = []; let wellsOnly = false;
  const seen = new Set();
  const push = (m, test, q, wells) => {
    const made = madeUp(m.sample, m.plate, m.well);
    if (made) wellsOnly = true;
    let sample = made ? null : m.sample ?? null;
    if (spec.wellSuffix && sample != null && m.well != null && String(sample).endsWith(`_${m.well}`)) sample = String(sample).slice(0, -String(m.well).length - 1);
    const row = [sample, test, num(q.value), unitOf(q.unit), wells ?? m.well ?? null];
    // NanoDrop repeats the sample's concentration on each wavelength's measurement: one result, once.
    const key = JSON.stringify(row);
    if (seen.has(key)) return;
    seen.add(key);
    rows.push(row);
  };
  if (spec.from === 'measurement') {
    for (const m of measurements) if (m.values[spec.field]) push(m, testOf(spec, m), m.values[spec.field]);
  } else if (spec.from === 'calculated') {
    for (const c of calculated) {
      if (c.name !== spec.field || !c.result) continue;
      const ms = [...new Set(c.sources.map((s) => s.m))]; const an = c.sources.find((s) => s.an)?.an;
      if (ms.length === 0) continue;
      const wells = ms.map((m) => m.well).filter((w) => w != null);
      push(ms[0], spec.test === 'analyte' ? an?.name ?? null : testOf(spec, ms[0], an, c), c.result, [...new Set(wells)].join(' ') || null);
    }
  } else if (spec.from === 'analyte') {
    for (const m of measurements) for (const an of m.analytes) {
      const q = an.values[spec.field];
      if (q) push(m, an.name, q);
    }
  }
  return { rows, wellsOnly };
}

function main() {
  const checkout = process.argv[2];
  if (!checkout || !fs.existsSync(path.join(checkout, 'tests', 'parsers'))) {
    console.error('usage: node scripts/allotropy-expectations.cjs <allotropy checkout dir>');
    process.exit(2);
  }
  const out = {};
  for (const parser of fs.readdirSync(FIXTURES).sort()) {
    const dir = path.join(FIXTURES, parser);
    if (!fs.statSync(dir).isDirectory()) continue;
    const files = [];
    const list = (d, rel) => { for (const e of fs.readdirSync(d).sort()) { const p = path.join(d, e); if (fs.statSync(p).isDirectory()) list(p, rel + e + '/'); else files.push(rel + e); } };
    list(dir, '');
    for (const file of files) {
      const conf = FIELDS[parser];
      const spec = conf && 'from' in conf ? (conf.files?.[file] ?? conf) : conf ? conf[file] : undefined;
      const key = `${parser}/${file}`;
      const jsonFile = path.join(checkout, 'tests', 'parsers', parser, 'testdata', file.replace(/\.[^./]+$/, '.json'));
      if (spec === null) { out[key] = { field: null, note: "allotropy's expected JSON has no per-sample result for this file" }; continue; }
      if (!spec) { console.error(`no field for ${key}`); process.exitCode = 1; continue; }
      // A file whose samples have several tests names a field per test: their rows one after the other.
      const specs = Array.isArray(spec) ? spec : [spec];
      const json = load(jsonFile);
      const each = specs.map((s) => expectations(json, s));
      const rows = each.flatMap((e) => e.rows);
      const wellsOnly = each.some((e) => e.wellsOnly);
      const [field, at] = Array.isArray(spec) ? [spec.map((s) => s.field), spec.map((s) => s.path)] : [spec.field, spec.path];
      out[key] = { field, path: at, ...(wellsOnly ? { wellsOnly: true } : {}), count: rows.length, results: rows };
    }
  }
  // One result a line: small to diff, small to read.
  const lines = ['{'];
  const keys = Object.keys(out);
  keys.forEach((k, i) => {
    const { results, ...head } = out[k];
    const h = JSON.stringify(head);
    if (!results) { lines.push(`  ${JSON.stringify(k)}: ${h}${i < keys.length - 1 ? ',' : ''}`); return; }
    lines.push(`  ${JSON.stringify(k)}: ${h.slice(0, -1)}, "results": [`);
    results.forEach((r, j) => lines.push(`    ${JSON.stringify(r)}${j < results.length - 1 ? ',' : ''}`));
    lines.push(`  ]}${i < keys.length - 1 ? ',' : ''}`);
  });
  lines.push('}');
  fs.writeFileSync(path.join(FIXTURES, 'expected.json'), lines.join('\n') + '\n');
  console.log(`wrote ${path.relative(ROOT, path.join(FIXTURES, 'expected.json'))}: ${keys.length} files`);
  writeInventory(checkout);
}

/** A negative test input of allotropy's (a file it must refuse), by its folder or name. */
const NEGATIVE = /(^|\/)(errors|invalid|exclude)\/|_error\.[^./]+$/i;

/**
 * inventory.json: every input file of allotropy's test data for the families in scope (the FIELDS table's parsers),
 * copied or not, with what its expected output holds: `expected` (the JSON is in the checkout), `negative` (a file
 * allotropy must refuse), `samples` (how many distinct sample identifiers it names that are not made up from a
 * plate and a well). The suite checks each file that has a per-sample result is either read or left out with a
 * reason (test/unit/allotropy-left-out.ts).
 */
function writeInventory(checkout) {
  const inventory = {};
  for (const parser of Object.keys(FIELDS).sort()) {
    const base = path.join(checkout, 'tests', 'parsers', parser, 'testdata');
    const files = [];
    const list = (d, rel) => {
      for (const e of fs.readdirSync(d).sort()) {
        const p = path.join(d, e);
        if (fs.statSync(p).isDirectory()) list(p, rel + e + '/');
        else if (!e.endsWith('.json') && !e.startsWith('.')) files.push(rel + e);
      }
    };
    list(base, '');
    for (const file of files) {
      const jsonFile = path.join(base, file.replace(/\.[^./]+$/, '.json'));
      const expected = fs.existsSync(jsonFile);
      let samples = 0;
      if (expected) {
        const { measurements } = readAsm(load(jsonFile));
        samples = new Set(measurements.filter((m) => m.sample != null && !madeUp(m.sample, m.plate, m.well)).map((m) => String(m.sample))).size;
      }
      inventory[`${parser}/${file}`] = { expected, negative: NEGATIVE.test(file), samples };
    }
  }
  const keys = Object.keys(inventory);
  const text = ['{', ...keys.map((k, i) => `  ${JSON.stringify(k)}: ${JSON.stringify(inventory[k])}${i < keys.length - 1 ? ',' : ''}`), '}'].join('\n');
  fs.writeFileSync(path.join(FIXTURES, 'inventory.json'), text + '\n');
  console.log(`wrote ${path.relative(ROOT, path.join(FIXTURES, 'inventory.json'))}: ${keys.length} files of ${Object.keys(FIELDS).length} families`);
}

main();
