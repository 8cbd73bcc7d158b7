// The monitoring files shipped in docs/monitoring/: the Grafana dashboard asks only for metrics the bridge exports,
// Prometheus scrapes the route that serves them, and nothing in examples/ is anything but a flow (Node-RED lists
// every .json under examples/ in Import > Examples).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { METRICS_PATH, createMetrics } from '../../nodes/shared/metrics';

const ROOT = join(__dirname, '..', '..', '..');
const MONITORING = join(ROOT, 'docs', 'monitoring');

function exported(): Set<string> {
  const names = createMetrics({ settings: {} } as never)
    .registry.getMetricsAsArray()
    .map((m) => m.name);
  return new Set(names);
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('docs/monitoring', () => {
  it('the Grafana dashboard is JSON whose every query names only metrics the bridge exports', () => {
    const dashboard = JSON.parse(readFileSync(join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const names = exported();
    const used = new Set<string>();
    assert.ok(dashboard.panels.length >= 5);
    for (const panel of dashboard.panels) {
      assert.ok(panel.targets.length > 0, `${panel.title} has a query`);
      for (const { expr } of panel.targets) {
        const metrics = expr.match(/\blisbridge_\w+/g) ?? [];
        assert.ok(metrics.length > 0, `${panel.title}: ${expr}`);
        for (const m of metrics) {
          const base = m.replace(/_(bucket|count|sum)$/, '');
          assert.ok(names.has(m) || names.has(base), `${panel.title}: ${m} is not exported (${[...names].join(', ')})`);
          used.add(base);
        }
      }
    }
    for (const wanted of ['lisbridge_link_up', 'lisbridge_link_last_received_timestamp_seconds', 'lisbridge_held_batches', 'lisbridge_link_results_total', 'lisbridge_lis_request_duration_seconds']) assert.ok(used.has(wanted), wanted);
  });

  it('the Prometheus configuration scrapes the metrics route with a bearer token', () => {
    const text = readFileSync(join(MONITORING, 'prometheus.yml'), 'utf8');
    assert.match(text, new RegExp(`^\\s+metrics_path: ${METRICS_PATH}$`, 'm'));
    assert.match(text, /^\s+type: Bearer$/m);
    assert.match(text, /^\s+credentials_file: /m);
  });

  it('metric names follow Prometheus conventions: lisbridge_ prefix, counters in _total, durations and times in _seconds', () => {
    for (const m of createMetrics({ settings: {} } as never).registry.getMetricsAsArray()) {
      const { name, type } = m as unknown as { name: string; type: string };
      assert.match(name, /^lisbridge_[a-z_]+$/);
      if (type === 'counter') assert.match(name, /_total$/, name);
      if (type === 'histogram' || /timestamp/.test(name)) assert.match(name, /_seconds$/, name);
    }
  });
});

describe('examples/', () => {
  it('holds only flows: every .json under it is an array of nodes with an id and a type', () => {
    const dir = join(ROOT, 'examples');
    const json = filesUnder(dir).filter((f) => f.endsWith('.json'));
    assert.ok(json.length > 0);
    for (const file of json) {
      const flow = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      assert.ok(Array.isArray(flow) && flow.length > 0, `${relative(ROOT, file)} is not a flow`);
      for (const n of flow as Array<Record<string, unknown>>) assert.ok(typeof n.id === 'string' && typeof n.type === 'string', `${relative(ROOT, file)}: a node without id or type`);
    }
  });

  it('and the package ships the monitoring files outside it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    assert.ok(pkg.files.includes('docs/monitoring/'));
    assert.ok(pkg.files.includes('examples/'));
  });
});
