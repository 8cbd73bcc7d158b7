/**
 * The demo LIS's web page: plain HTML rendered on the server, a stylesheet and
 * a few lines of browser script, all served by DemoLis itself (no build step,
 * nothing fetched from elsewhere).
 *
 * All data reaches the page through `cell()` and `escapeHtml()`: patient names,
 * result values and error texts come from whoever called the LIS and may hold
 * markup. The script refreshes the panels by fetching them as HTML rendered
 * here, so there is one rendering path and one place that escapes.
 */
import { ENDPOINT_KINDS, type DemoLisState, type EndpointKind, type RequestRecord } from './journal';

/** Rows shown per panel; /api/state has everything kept. */
export const PANEL_ROWS = 200;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Tone = 'ok' | 'warn' | 'err' | 'dim';
interface Cell {
  text: string;
  tone?: Tone;
  title?: string;
}

function cell(c: Cell | string): string {
  const { text, tone, title } = typeof c === 'string' ? { text: c, tone: undefined, title: undefined } : c;
  const attrs = `${tone ? ` class="${tone}"` : ''}${title ? ` title="${escapeHtml(title)}"` : ''}`;
  return `<td${attrs}>${escapeHtml(text)}</td>`;
}

function table(id: string, title: string, headings: string[], rows: Array<Array<Cell | string>>, empty: string): string {
  const shown = rows.slice(0, PANEL_ROWS);
  const more = rows.length > shown.length ? ` <small>(latest ${shown.length} of ${rows.length}; all in api/state)</small>` : '';
  const count = rows.length > 0 && more === '' ? ` <small>(${rows.length})</small>` : '';
  const body =
    shown.length === 0
      ? `<tr><td class="dim" colspan="${headings.length}">${escapeHtml(empty)}</td></tr>`
      : shown.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('\n');
  // The table scrolls inside its own box: a long history never pushes the panels below it out of sight.
  return `<section id="${id}"><h2>${escapeHtml(title)}${more}${count}</h2>
<div class="scroll"><table><thead><tr>${headings.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>
<tbody>
${body}
</tbody></table></div></section>`;
}

/** A field of a JSON value that may be anything. */
function prop(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return JSON.stringify(value);
}

function time(at: string): Cell {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return { text: `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`, title: at, tone: 'dim' };
}

/** The HTTP status with the answer's own status word or error message. */
function outcome(status: number | null, answer: unknown, note: string): Cell {
  const word = show(prop(answer, 'status')) || show(prop(answer, 'message'));
  const text = `${status ?? 'no answer'}${word ? ` ${word}` : ''}`;
  const tone: Tone = status === null || status >= 400 ? 'err' : word === 'success' ? 'ok' : 'warn';
  return { text, tone, title: note };
}

function ordersPanel(records: RequestRecord[]): string {
  const rows = records.map((r) => {
    const order = prop(r.answer, 'order');
    const patient = prop(order, 'patient');
    const age = show(prop(patient, 'Age'));
    const born = [show(prop(patient, 'DateOfBirth')), age && `(${age} ${show(prop(patient, 'AgeUnit'))})`].filter(Boolean).join(' ');
    const name = show(prop(patient, 'Name'));
    return [
      time(r.at),
      show(prop(r.body, 'SampleNumber')),
      outcome(r.status, r.answer, r.note),
      name ? `${name} (${show(prop(patient, 'ID'))})` : '',
      show(prop(patient, 'Sex')),
      born,
      show(prop(order, 'Priority')),
      show(prop(order, 'SampleType')),
      show(prop(order, 'Tests')),
    ];
  });
  return table('orders', 'Orders served', ['Time', 'Sample', 'Answer', 'Patient', 'Sex', 'Born', 'Priority', 'Sample type', 'Tests'], rows, 'No order requests yet.');
}

function resultsPanel(records: RequestRecord[]): string {
  const rows: Array<Array<Cell | string>> = [];
  for (const r of records) {
    if (r.status !== 200) continue; // refused ones are under "Refused requests"
    const items = prop(r.body, 'results');
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      rows.push([time(r.at), show(prop(item, 'SampleNumber')), show(prop(item, 'TestCode')), show(prop(item, 'SubTestCode')), show(prop(item, 'Result'))]);
    }
  }
  return table('results', 'Results received', ['Time', 'Sample', 'Test code', 'Sub-test', 'Value'], rows, 'No results yet.');
}

function processedPanel(records: RequestRecord[]): string {
  const rows = records.map((r) => {
    const tests = prop(r.body, 'Tests');
    let ids: unknown = tests;
    if (typeof tests === 'string') {
      try {
        ids = JSON.parse(tests);
      } catch {
        // Shown as sent; the answer cell says why it was refused.
      }
    }
    return [time(r.at), show(prop(r.body, 'SampleNumber')), show(ids), outcome(r.status, r.answer, r.note)];
  });
  return table('processed', 'Processed notifications', ['Time', 'Sample', 'Tests', 'Answer'], rows, 'No processed notifications yet.');
}

function pushesPanel(state: DemoLisState): string {
  const rows = state.pushes.map((p) => [
    time(p.at),
    p.sampleNumber,
    show(prop(p.order, 'Tests')),
    outcome(p.status, p.answer, p.error ?? 'pushed'),
    p.error ?? '',
  ]);
  return table('pushes', 'Orders pushed', ['Time', 'Sample', 'Tests', 'Push server answer', 'Problem'], rows, 'No orders pushed yet.');
}

function refusedPanel(state: DemoLisState): string {
  const refused = ENDPOINT_KINDS.flatMap((k) => state.requests[k].filter((r) => r.status >= 400)).sort((a, b) => b.seq - a.seq);
  const rows = refused.map((r) => {
    const errors = prop(r.answer, 'errors');
    return [time(r.at), `${r.kind} (${r.method} ${r.path})`, { text: String(r.status), tone: 'err' as const }, show(prop(r.answer, 'message')), show(errors)];
  });
  return table('refused', 'Refused requests', ['Time', 'Endpoint', 'Status', 'Message', 'Errors'], rows, 'Nothing refused.');
}

function catalogPanel(records: RequestRecord[]): string {
  const rows = records.map((r) => {
    const filters = (['Name', 'Code'] as const).map((f) => (show(prop(r.body, f)) ? `${f} "${show(prop(r.body, f))}"` : '')).filter(Boolean).join(', ');
    const tests = prop(r.answer, 'tests');
    return [time(r.at), filters || 'none', Array.isArray(tests) ? `${r.status}: ${tests.length} tests` : outcome(r.status, r.answer, r.note)];
  });
  return table('catalog', 'Catalog requests', ['Time', 'Filters', 'Answer'], rows, 'No catalog requests yet.');
}

/**
 * The live part of the page, re-fetched by the script on every event. What
 * came back from the analyzer (results, processed) comes first, beside each
 * other, so it is in view without scrolling however many orders were served.
 */
export function renderPanels(state: DemoLisState): string {
  return [
    `<div class="row outcome">`,
    resultsPanel(state.requests.results),
    processedPanel(state.requests.processed),
    `</div>`,
    ordersPanel(state.requests.orders),
    `<div class="row more">`,
    pushesPanel(state),
    refusedPanel(state),
    catalogPanel(state.requests.tests),
    `</div>`,
  ].join('\n');
}

const SETTING_NAMES: Record<EndpointKind, string> = {
  tests: 'LabTestsAPI URL',
  orders: 'TransactionInfoAPI URL',
  results: 'ResultAPI URL',
  processed: 'OrderCompletedAPI URL',
};

function tokenCell(state: DemoLisState): string {
  if (state.token !== null) return `<code id="token">${escapeHtml(state.token)}</code> <span class="dim">required on the four endpoints</span>`;
  return state.tokenRequired ? 'required: use the token the demo LIS was started with' : 'not required (leave empty)';
}

export function renderPage(state: DemoLisState): string {
  const endpoints = state.endpoints;
  const setup = endpoints
    ? ENDPOINT_KINDS.map((k) => `<tr><th>${escapeHtml(SETTING_NAMES[k])}</th><td><code>${escapeHtml(endpoints[k])}</code></td></tr>`).join('\n')
    : '';
  const push = state.pushUrl
    ? `<form id="push-form" autocomplete="off">
<label>Sample number <input id="push-sample" name="SampleNumber" required placeholder="e.g. S2001"></label>
<button type="submit">Push</button>
<span class="dim">to <code>${escapeHtml(state.pushUrl)}</code></span>
</form>
<pre id="push-answer" aria-live="polite"></pre>`
    : '<p class="dim">No push URL configured: start the demo LIS with <code>--push-url</code> (or <code>LIS_PUSH_URL</code>) pointing at a lis-push-in node.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo LIS</title>
<link rel="stylesheet" href="app.css">
</head>
<body>
<header><h1>Demo LIS</h1> <span id="live" class="dim">connecting…</span> <a href="api/state">api/state</a></header>
<div id="top">
<section id="setup">
<h2>lis-config settings</h2>
<table>
${setup}
<tr><th>Bearer Token</th><td>${tokenCell(state)}</td></tr>
</table>
</section>
<section id="push">
<h2>Push an order</h2>
${push}
<p class="dim">Any sample number gets an order, the same one every time. Seeded samples: <code>${escapeHtml(state.seededSamples.join(', '))}</code>.
No order for sample numbers matching <code>${escapeHtml(state.noOrderPattern)}</code>.
Tests marked processed are left out of later orders for the sample unless it is asked for with <code>allTests: "1"</code>.</p>
</section>
</div>
<main id="panels">
${renderPanels(state)}
</main>
<script src="app.js"></script>
</body>
</html>
`;
}

/** The page's script. URLs are relative so the page works under a path prefix. */
export const PAGE_SCRIPT = `'use strict';
(() => {
  const panels = document.getElementById('panels');
  const live = document.getElementById('live');
  let timer = null;
  // Events can come in bursts (a batch of results): redraw once per burst.
  const schedule = () => {
    if (timer === null) timer = setTimeout(refresh, 150);
  };
  const refresh = () => {
    timer = null;
    fetch('panels', { cache: 'no-store' })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error('HTTP ' + r.status))))
      .then((html) => { panels.innerHTML = html; })
      .catch(() => { live.textContent = 'refresh failed'; live.className = 'err'; });
  };
  const events = new EventSource('events');
  for (const kind of ['tests', 'orders', 'results', 'processed', 'push']) events.addEventListener(kind, schedule);
  events.onopen = () => { live.textContent = 'live'; live.className = 'ok'; schedule(); };
  events.onerror = () => { live.textContent = 'reconnecting…'; live.className = 'warn'; };

  const form = document.getElementById('push-form');
  if (form) {
    const input = document.getElementById('push-sample');
    const answer = document.getElementById('push-answer');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      answer.textContent = 'pushing…';
      fetch('push', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ SampleNumber: input.value }) })
        .then((r) => r.text().then((text) => {
          let shown = text;
          try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (err) { /* not JSON: show as it came */ }
          answer.textContent = 'HTTP ' + r.status + '\\n' + shown;
          answer.className = r.ok ? 'ok' : 'err';
        }))
        .catch((err) => { answer.textContent = String(err); answer.className = 'err'; });
    });
  }
})();
`;

export const PAGE_STYLE = `body { font: 14px/1.4 system-ui, sans-serif; margin: .75rem 1.5rem; color: #1d2327; background: #fafafa; }
header { display: flex; align-items: baseline; gap: 1rem; }
h1 { margin: 0; font-size: 1.5rem; }
h2 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
h2 small { font-weight: normal; color: #666; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
thead th { background: #eef1f4; position: sticky; top: 0; }
#setup table { width: auto; }
#setup th { white-space: nowrap; }
.scroll { max-height: 17rem; overflow: auto; border: 1px solid #e3e3e3; background: #fff; }
.row { display: grid; gap: 0 1.5rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 64rem) {
  #top { display: grid; gap: 0 2rem; grid-template-columns: auto minmax(0, 1fr); }
  .outcome { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .more { grid-template-columns: repeat(3, minmax(0, 1fr)); }
}
code { font-family: ui-monospace, monospace; font-size: 90%; }
pre { background: #fff; border: 1px solid #e3e3e3; padding: .5rem; max-height: 20rem; overflow: auto; }
pre:empty { display: none; }
form { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.ok { color: #1a7f37; }
.warn { color: #9a6700; }
.err { color: #cf222e; }
.dim { color: #666; }
`;

/**
 * Served with the page: only this server's own script, styles and fetches,
 * so a value that escaped escaping still could not run or load anything.
 */
export const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
