/**
 * The Levey-Jennings chart the Lab sidebar draws (nodes/editor/qc-chart.js), run as the browser runs it, with the
 * package's own catalog behind RED._. Its SVG is read back with a strict little XML reader, so a text from the data
 * that broke out of its element would fail here as it would in the page.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { translate } from '../support/catalogs';

const SCRIPT = readFileSync(join(__dirname, '..', '..', '..', 'nodes', 'editor', 'qc-chart.js'), 'utf8');

interface Point {
  id: string;
  at: string;
  value: number;
  z: number | null;
  run: string;
  state: 'in-control' | 'warning' | 'rejected' | 'establishing';
  violations: string[];
  excluded?: string;
}
interface Chart {
  analyzer: string;
  test: string;
  material: string;
  lot: string;
  from: string;
  to: string;
  unit: string | null;
  target: { mean: number; sd: number; source: string; by?: string; at?: string } | null;
  proposed: { mean: number; sd: number; n: number } | null;
  rules: string;
  points: Point[];
}
type Svg = (data: Chart, options?: { width?: number; height?: number }) => string;

function chartSvg(): Svg {
  const window: { LisBridgeQcChart?: { svg: Svg } } = {};
  runInNewContext(SCRIPT, { window, RED: { _: translate } });
  return window.LisBridgeQcChart!.svg;
}
const svg = chartSvg();

interface El {
  name: string;
  attrs: Record<string, string>;
  children: El[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
function unescape(s: string): string {
  assert.doesNotMatch(s, /&(?!(amp|lt|gt|quot|#39);)/, `a bare & in ${s}`);
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e] ?? e);
}

/** The SVG as a tree; throws on anything but well-formed elements, attributes in double quotes and escaped text. */
function parse(xml: string): El {
  const root: El = { name: '#root', attrs: {}, children: [], text: '' };
  const open = [root];
  const token = /<(\/?)([\w:-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < xml.length && (m = token.exec(xml))) {
    at = token.lastIndex;
    const top = open[open.length - 1]!;
    if (m[5] !== undefined) {
      top.text += unescape(m[5]);
      continue;
    }
    if (m[1]) {
      assert.equal(top.name, m[2], `</${m[2]}> closes <${top.name}>`);
      open.pop();
      continue;
    }
    const el: El = { name: m[2]!, attrs: {}, children: [], text: '' };
    for (const a of m[3]!.matchAll(/([\w:-]+)="([^"]*)"/g)) el.attrs[a[1]!] = unescape(a[2]!);
    top.children.push(el);
    if (!m[4]) open.push(el);
  }
  assert.equal(at, xml.length, `unreadable from ${xml.slice(at, at + 40)}`);
  assert.equal(open.length, 1, 'every element is closed');
  assert.equal(root.children.length, 1);
  return root.children[0]!;
}

function all(el: El, className: string, out: El[] = []): El[] {
  if ((el.attrs.class ?? '').split(' ').includes(className)) out.push(el);
  for (const c of el.children) all(c, className, out);
  return out;
}
function one(el: El, className: string): El {
  const found = all(el, className);
  assert.equal(found.length, 1, `one .${className}`);
  return found[0]!;
}
/** Every text in the element, its tspans' included. */
function words(el: El): string {
  return el.text + el.children.map(words).join('');
}
const num = (el: El, name: string) => Number(el.attrs[name]);

/** The chart's own mapping, from its plot box: value to y, time to x. */
function geometry(root: El) {
  const plot = one(root, 'qc-plot');
  const [x, y, w, h, lo, hi, from, to] = ['x', 'y', 'width', 'height', 'data-lo', 'data-hi', 'data-from', 'data-to'].map((a) => num(plot, a)) as [number, number, number, number, number, number, number, number];
  const round = (v: number) => Math.round(v * 10) / 10;
  return { top: y, bottom: y + h, lo, hi, yOf: (v: number) => round(y + ((hi - v) / (hi - lo)) * h), xOf: (t: number) => round(x + ((t - from) / (to - from)) * w) };
}

const DAY = 86400000;
const FROM = Date.parse('2026-11-01T00:00:00.000Z');
const TARGET = { mean: 5.2, sd: 0.1, source: 'entered', by: 'alice', at: '2026-10-30T09:00:00.000Z' };

function point(i: number, value: number, extra: Partial<Point> = {}): Point {
  const z = Math.round(((value - TARGET.mean) / TARGET.sd) * 100) / 100;
  return { id: `m${i}:1`, at: new Date(FROM + i * DAY + 8 * 3600000).toISOString(), value, z, run: `r-${i}`, state: 'in-control', violations: [], ...extra };
}

function chart(points: Point[], extra: Partial<Chart> = {}): Chart {
  return {
    analyzer: 'cobas-1',
    test: 'GLU',
    material: 'L1',
    lot: 'LOT-A',
    from: new Date(FROM).toISOString(),
    to: new Date(FROM + 30 * DAY).toISOString(),
    unit: 'mmol/L',
    target: TARGET,
    proposed: null,
    rules: '1-3s / 2-2s / R-4s / 4-1s / 10x, 1-2s warning',
    points,
    ...extra,
  };
}

const markers = (root: El) => all(root, 'qc-point');
function nth<T>(list: T[], i: number): T {
  const v = list[i];
  assert.ok(v !== undefined, `an item ${i}`);
  return v;
}
/** A point's marker: its circle, or its triangle off the chart. */
const shape = (g: El) => one(g, 'qc-marker');
const titleOf = (g: El) => g.children.find((c) => c.name === 'title')!.text;
/** The vertices of the line joining the points. */
function joined(root: El): string[] {
  return [...(one(root, 'qc-line').attrs.d ?? '').matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => `${m[1]} ${m[2]}`);
}
function placeOf(g: El): string {
  const c = shape(g);
  assert.equal(c.name, 'circle');
  return `${c.attrs.cx} ${c.attrs.cy}`;
}

describe('the QC chart (Levey-Jennings)', () => {
  it('draws the mean and ±1, 2 and 3 SD at their values, labelled, over a range past ±3.5 SD', () => {
    const root = parse(svg(chart([point(1, 5.25), point(2, 5.1)])));
    const g = geometry(root);
    assert.ok(g.lo <= TARGET.mean - 3.5 * TARGET.sd && g.hi >= TARGET.mean + 3.5 * TARGET.sd, `${g.lo} .. ${g.hi}`);
    const lines = all(root, 'qc-sd-line');
    assert.deepEqual(lines.map((l) => l.attrs['data-sd']), ['+3', '+2', '+1', '0', '-1', '-2', '-3']);
    for (const line of lines) {
      const k = Number(line.attrs['data-sd']);
      assert.equal(num(line, 'y1'), g.yOf(TARGET.mean + k * TARGET.sd), `the ${line.attrs['data-sd']} SD line`);
      assert.equal(line.attrs.y1, line.attrs.y2);
    }
    const labels = Object.fromEntries(all(root, 'qc-sd-label').map((l) => [l.attrs['data-sd'], l.text]));
    assert.deepEqual(labels, { '+3': '+3 SD 5.50', '+2': '+2 SD 5.40', '+1': '+1 SD 5.30', '0': 'mean 5.20', '-1': '-1 SD 5.10', '-2': '-2 SD 5.00', '-3': '-3 SD 4.90' });
    const line = (sd: string) => lines.find((l) => l.attrs['data-sd'] === sd)!;
    assert.equal(line('0').attrs['stroke-dasharray'], undefined, 'the mean is solid');
    assert.ok(line('+2').attrs['stroke-dasharray'] && line('-2').attrs['stroke-dasharray'], '±2 SD dashed');
    assert.equal(line('+3').attrs.stroke, line('-3').attrs.stroke);
    assert.notEqual(line('+3').attrs.stroke, line('+1').attrs.stroke, '±3 SD in their own colour');
    assert.ok(one(root, 'qc-mean') === line('0'));
    // A point sits at its value's y and its time's x.
    const first = shape(nth(markers(root), 0));
    assert.equal(num(first, 'cy'), g.yOf(5.25));
    assert.equal(num(first, 'cx'), g.xOf(FROM + DAY + 8 * 3600000));
  });

  it('formats the values by the SD: one digit past its first significant one', () => {
    const labels = (sd: number, mean: number) => all(parse(svg(chart([], { target: { mean, sd, source: 'entered' } }))), 'qc-sd-label').map((l) => l.text);
    assert.deepEqual(labels(2, 120).slice(0, 2), ['+3 SD 126.0', '+2 SD 124.0']);
    assert.deepEqual(labels(0.05, 1.2).slice(0, 2), ['+3 SD 1.350', '+2 SD 1.300']);
    assert.deepEqual(labels(15, 300).slice(0, 1), ['+3 SD 345']);
  });

  it('draws one focusable marker per point, each with its details, in time order', () => {
    const points = [point(1, 5.31, { z: 1.1, run: 'r-12' }), point(2, 5.18), point(3, 5.22)];
    const root = parse(svg(chart(points)));
    const gs = markers(root);
    assert.equal(gs.length, points.length);
    assert.deepEqual(gs.map((x) => x.attrs['data-point']), ['0', '1', '2']);
    assert.ok(gs.every((x) => x.attrs.tabindex === '0' || x.attrs.tabindex === '-1'));
    assert.equal(gs.filter((x) => x.attrs.tabindex === '0').length, 1, 'one point in the tab order');
    assert.equal(titleOf(nth(gs, 0)), '2026-11-02 08:00 UTC · 5.31 mmol/L · +1.1 SD · in control');
    assert.equal(joined(root).length, 3);
    assert.deepEqual(joined(root), gs.map(placeOf));
  });

  it('marks a point in a violation, writes its rules once per violation, and colours a warning', () => {
    const points = [
      point(1, 5.23),
      point(2, 5.53, { state: 'rejected', violations: ['1-2s', '1-3s'] }),
      point(3, 5.42, { state: 'warning', violations: ['1-2s'] }),
      point(4, 5.41, { state: 'rejected', violations: ['1-2s', '2-2s'] }),
      point(5, 5.43, { state: 'rejected', violations: ['1-2s', '2-2s'] }),
      point(6, 5.2, { state: 'rejected' }),
    ];
    const root = parse(svg(chart(points)));
    const gs = markers(root);
    const violated = all(root, 'qc-violation');
    assert.deepEqual(violated.map((g) => g.attrs['data-point']), ['1', '3', '4']);
    for (const g of violated) assert.equal(all(g, 'qc-ring').length, 1, 'ringed');
    const labels = all(root, 'qc-rule-label');
    assert.deepEqual(labels.map((l) => [l.attrs['data-point'], words(l)]), [['1', '1-3s'], ['4', '2-2s']], 'the 2-2s is written once, at its last point');
    assert.match(titleOf(nth(gs, 1)), / · rejected · rules violated: 1-2s, 1-3s$/);
    assert.deepEqual(all(root, 'qc-warning').map((g) => g.attrs['data-point']), ['2']);
    assert.notEqual(shape(nth(gs, 2)).attrs.fill, shape(nth(gs, 0)).attrs.fill, 'amber, not the plain colour');
    assert.notEqual(shape(nth(gs, 2)).attrs.fill, shape(nth(gs, 1)).attrs.fill, 'amber, not red');
    // A point of a rejected run that is in no violation itself is drawn plain; its run's state is in its details.
    assert.equal(nth(gs, 5).attrs.class, 'qc-point');
    assert.match(titleOf(nth(gs, 5)), / · rejected$/);
  });

  it('draws an excluded point hollow, with its reason, and leaves it out of the line', () => {
    const points = [point(1, 5.21), point(2, 5.6, { excluded: 'wrong vial opened' }), point(3, 5.18)];
    const root = parse(svg(chart(points)));
    const excluded = one(root, 'qc-excluded');
    assert.equal(excluded.attrs['data-point'], '1');
    assert.equal(shape(excluded).attrs.fill, 'none');
    assert.match(titleOf(excluded), / · excluded: wrong vial opened$/);
    const line = joined(root);
    assert.equal(line.length, 2);
    assert.ok(!line.includes(placeOf(excluded)));
    assert.deepEqual(line, [placeOf(nth(markers(root), 0)), placeOf(nth(markers(root), 2))]);
  });

  it('draws a point past the range at its edge, with the off-chart marker', () => {
    const points = [point(1, 5.2), point(2, 5.8), point(3, 4.3), point(4, 5.59)];
    const root = parse(svg(chart(points)));
    const g = geometry(root);
    const off = all(root, 'qc-offchart');
    assert.deepEqual(off.map((x) => [x.attrs['data-point'], x.attrs['data-edge']]), [['1', 'high'], ['2', 'low']]);
    const tip = (x: El) => Number(/^[\d.]+,([\d.]+) /.exec(shape(x).attrs.points ?? '')?.[1]);
    assert.equal(tip(nth(off, 0)), g.top);
    assert.equal(tip(nth(off, 1)), g.bottom);
    assert.match(titleOf(nth(off, 0)), / · 5\.8 mmol\/L · \+6\.0 SD · /, 'its value in its details');
    assert.equal(markers(root).length, 4);
    assert.equal(all(nth(markers(root), 3), 'qc-offchart').length, 0, 'inside the range: a circle');
  });

  it('names the target, or the one being established, or says there is none yet', () => {
    const target = parse(svg(chart([point(1, 5.2)])));
    assert.equal(words(one(target, 'qc-series')), 'cobas-1 · GLU · L1 · LOT-A (mmol/L)');
    assert.equal(words(one(target, 'qc-target')), 'target: mean 5.20, SD 0.10 · entered by alice');
    assert.ok(all(target, 'qc-scale-target').includes(target));

    const establishing = parse(svg(chart([point(1, 5.1, { z: null, state: 'establishing' })], { target: null, proposed: { mean: 5.12, sd: 0.08, n: 7 } })));
    assert.equal(words(one(establishing, 'qc-target')), 'establishing: 7 of 20');
    const g = geometry(establishing);
    const plus2 = all(establishing, 'qc-sd-line').find((l) => l.attrs['data-sd'] === '+2')!;
    assert.equal(num(plus2, 'y1'), g.yOf(5.12 + 2 * 0.08), 'the proposed SDs are drawn');
    assert.equal(all(establishing, 'qc-sd-label').find((l) => l.attrs['data-sd'] === '+2')!.text, '+2 SD 5.280', 'sd 0.08: three decimals');
    assert.doesNotMatch(titleOf(nth(markers(establishing), 0)), / SD /, 'no z without a target');

    const none = parse(svg(chart([point(1, 4.0, { z: null }), point(2, 6.5, { z: null }), point(3, 5.0, { z: null })], { target: null })));
    assert.equal(words(one(none, 'qc-target')), 'no target yet');
    assert.equal(all(none, 'qc-sd-line').length, 0);
    const ng = geometry(none);
    assert.ok(ng.lo < 4.0 && ng.hi > 6.5, 'scaled to the values');
    assert.equal(all(none, 'qc-offchart').length, 0);
    assert.deepEqual(all(none, 'qc-y-label').map((l) => l.text), ['6.5', '5.3', '4.0'], 'its highest, middle and lowest, to a digit past the spread');
    for (const m of markers(none)) {
      const cy = num(shape(m), 'cy');
      assert.ok(cy > ng.top && cy < ng.bottom);
    }
    // One point, no target: a range around it, not a division by zero.
    const single = parse(svg(chart([point(1, 5, { z: null })], { target: null })));
    assert.ok(Number.isFinite(num(shape(nth(markers(single), 0)), 'cy')));
  });

  it('writes the rule set in force, and UTC date ticks over the range', () => {
    const root = parse(svg(chart([point(1, 5.2)])));
    assert.equal(words(one(root, 'qc-rules')), 'rules: 1-3s / 2-2s / R-4s / 4-1s / 10x, 1-2s warning');
    assert.deepEqual(all(root, 'qc-x-label').map((l) => l.text), ['11-01', '11-06', '11-11', '11-16', '11-21', '11-26', '12-01']);
    const ninety = parse(svg(chart([], { to: new Date(FROM + 90 * DAY).toISOString() })));
    const ticks = all(ninety, 'qc-x-label').length;
    assert.ok(ticks >= 3 && ticks <= 8, `${ticks} ticks`);
  });

  it('escapes every text from the data', () => {
    const hostile = '<script>alert(1)</script>';
    const data = chart([point(1, 5.2, { excluded: '</title><script>x()</script>', run: '"><img src=x onerror=y()>' }), point(2, 5.3, { violations: ['<b>'] })], {
      analyzer: hostile,
      test: 'A&B',
      lot: "L'1\"",
      unit: '<i>',
      rules: '<rules>',
      target: { ...TARGET, by: '<svg onload=z()>' },
    });
    const text = svg(data);
    assert.doesNotMatch(text, /<script|<img|<b>|<i>|<rules>|<svg onload/);
    const root = parse(text);
    assert.equal(words(one(root, 'qc-series')), `${hostile} · A&B · L1 · L'1" (<i>)`);
    assert.equal(words(one(root, 'qc-rules')), 'rules: <rules>');
    assert.match(words(one(root, 'qc-target')), /by <svg onload=z\(\)>$/);
    assert.match(titleOf(nth(markers(root), 0)), /5\.2 <i> · .*excluded: <\/title><script>x\(\)<\/script>$/);
    assert.match(root.attrs['aria-label'] ?? '', /<script>alert\(1\)<\/script>/);
  });

  it('draws a readable chart with no points', () => {
    const root = parse(svg(chart([])));
    assert.equal(markers(root).length, 0);
    assert.equal(words(one(root, 'qc-empty')), 'no control results in this range');
    assert.equal(all(root, 'qc-sd-line').length, 7);
    const bare = parse(svg(chart([], { target: null })));
    assert.equal(words(one(bare, 'qc-empty')), 'no control results in this range');
    assert.equal(words(one(bare, 'qc-target')), 'no target yet');
  });

  it('takes its size from the options', () => {
    const root = parse(svg(chart([point(1, 5.2)]), { width: 900, height: 400 }));
    assert.equal(root.attrs.width, '900');
    assert.equal(root.attrs.viewBox, '0 0 900 400');
    assert.equal(parse(svg(chart([]))).attrs.viewBox, '0 0 640 260');
  });

  it('uses only texts the catalog has', () => {
    const text = svg(chart([point(1, 5.2, { state: 'warning', violations: ['1-2s'] }), point(2, 5.7, { state: 'rejected', violations: ['1-3s'], excluded: 'x' })], { proposed: { mean: 5, sd: 0.1, n: 3 } }));
    assert.doesNotMatch(text, /lab\.qc\.chart\./);
    assert.doesNotMatch(svg(chart([], { target: null, proposed: { mean: 5, sd: 0, n: 1 } })), /lab\.qc\.chart\./);
  });

  it('draws 5,000 points, its size growing with their number alone', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => point(i, 5.2 + (((i * 7919) % 61) - 30) / 100, { at: new Date(FROM + i * 60000).toISOString() }));
    const small = svg(chart(many(500)));
    const large = svg(chart(many(5000)));
    assert.equal(markers(parse(large)).length, 5000);
    const ratio = large.length / small.length;
    assert.ok(ratio > 9 && ratio < 11, `5,000 points take ${ratio.toFixed(2)} times the text of 500`);
  });
});
