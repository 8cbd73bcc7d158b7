// After tsc: put each node's editor HTML, message catalogs and help beside its
// built .js, and the icons in dist/nodes/icons, where Node-RED's loader looks.
// Numeric settings come from one table (nodes/shared/node-settings.ts, over lib/settings/node-settings.ts): the
// dialogs get their defaults, validators and placeholders from it here, so the
// editor and the runtime can never disagree on a default or a range.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'nodes');
mkdirSync(out, { recursive: true });
const { NODE_SETTINGS } = createRequire(import.meta.url)(join(root, 'dist', 'nodes', 'shared', 'node-settings.js'));

/**
 * The dialog's `defaults` entries for a node's numeric settings. Empty (or
 * absent, in flows from before a setting existed) means the default; ${VAR}
 * values are checked by Node-RED itself. A refused value's message starts
 * with the field's label (`labels`: setting -> catalog key), because Node-RED
 * lists a node's invalid properties by their messages alone (the triangle's
 * tooltip, the deploy warning). The validator takes two arguments: Node-RED
 * (3.x and later) shows the string a validator returns only from one that does;
 * from a one-argument validator it takes any string as valid.
 */
function settingsDefaults(table, labels) {
  return `(function (table, labels) {
        var out = {};
        Object.keys(table).forEach(function (key) {
            var s = table[key];
            out[key] = {
                value: s.default,
                required: false,
                validate: function (v, opt) {
                    var text = v === undefined || v === null ? "" : String(v).trim();
                    if (text === "") return true;
                    var n = Number(text);
                    if ((s.fraction ? /^\\d+(\\.\\d+)?$/ : /^\\d+$/).test(text) && n >= s.min && (s.max === undefined || n <= s.max)) return true;
                    var label = labels[key] ? RED._(labels[key]) : (opt && opt.label) || key;
                    var rule = (s.max === undefined ? "atLeast" : "between") + (s.fraction ? "Number" : "");
                    return RED._("@lis-bridge/node-red-lis-bridge/lis-config:common.settings." + rule, { label: label, default: s.default, min: s.min, max: s.max });
                }
            };
        });
        return out;
    })(${JSON.stringify(table)}, ${JSON.stringify(labels)})`;
}

/**
 * The catalog key of each setting's label in a dialog (`<label for="node-input-<key>">`
 * holding a data-i18n span), namespaced as the editor's RED._ needs it outside the dialog.
 */
function settingLabels(html, type, table) {
  const labels = {};
  for (const key of Object.keys(table)) {
    const m = new RegExp(`<label for="node-(?:config-)?input-${key}"[^>]*>(?:(?!</label>)[\\s\\S])*?data-i18n="([^"]+)"`).exec(html);
    if (!m) throw new Error(`nodes/${type}.html: no label with a data-i18n text for the setting ${key}`);
    labels[key] = m[1].includes(':') ? m[1] : `@lis-bridge/node-red-lis-bridge/${type}:${m[1]}`;
  }
  return labels;
}

for (const file of readdirSync(join(root, 'nodes'))) {
  if (!file.endsWith('.html')) continue;
  const type = file.slice(0, -'.html'.length);
  let html = expandDialogIncludes(file, readFileSync(join(root, 'nodes', file), 'utf8'));
  const table = NODE_SETTINGS[type];
  if (table) {
    if (!html.includes('/*@settings*/ {}')) throw new Error(`nodes/${file}: no /*@settings*/ {} marker for its numeric settings`);
    html = html.replace('/*@settings*/ {}', settingsDefaults(table, settingLabels(html, type, table)));
    html = html.replace(/@@default\.(\w+)@@/g, (whole, key) => {
      if (!(key in table)) throw new Error(`nodes/${file}: ${whole} names no setting of ${type}`);
      return String(table[key].default);
    });
  }
  writeFileSync(join(out, file), html);
}
if (existsSync(join(root, 'nodes', 'locales'))) {
  cpSync(join(root, 'nodes', 'locales'), join(out, 'locales'), { recursive: true });
  for (const lang of readdirSync(join(out, 'locales'))) expandIncludes(join(out, 'locales', lang));
}
if (existsSync(join(root, 'icons'))) cpSync(join(root, 'icons'), join(out, 'icons'), { recursive: true });
// Editor scripts shared by several dialogs, served by an admin route (nodes/shared/dialect-routes.ts).
if (existsSync(join(root, 'nodes', 'editor'))) cpSync(join(root, 'nodes', 'editor'), join(out, 'editor'), { recursive: true });

/**
 * Dialogs share rows and the editor code behind them (every analyzer link's
 * journal, trace and alarm rows, say): each is written once in
 * nodes/_include/<name> and put in place of `<!-- @include name -->` in a
 * template, or of the same words as a slash-star comment without spaces in an
 * editor script, before the settings markers are filled, so a fragment may use
 * `@@default.key@@` too. Their texts belong in the shared catalog
 * (lis-config.json), where every node finds them.
 */
function expandDialogIncludes(file, html) {
  return html.replace(/<!-- @include ([\w.-]+) -->|\/\*@include ([\w.-]+)\*\//g, (whole, inTemplate, inScript) => {
    const path = join(root, 'nodes', '_include', inTemplate ?? inScript);
    if (!existsSync(path)) throw new Error(`nodes/${file}: ${whole} names no file in nodes/_include`);
    // The first line takes the marker's indentation.
    return readFileSync(path, 'utf8').replace(/^\s+/, '').replace(/\n$/, '');
  });
}

/**
 * Help texts share passages (what a Catch node receives, say): each is written
 * once in locales/<lang>/_include/<name>.md and put in place of
 * `<!-- @include name -->` here; the _include folder does not ship.
 */
function expandIncludes(dir) {
  const includes = join(dir, '_include');
  if (!existsSync(includes)) return;
  const parts = new Map(readdirSync(includes).map((f) => [f.replace(/\.md$/, ''), readFileSync(join(includes, f), 'utf8').replace(/\n$/, '')]));
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.html')) continue;
    const text = readFileSync(join(dir, file), 'utf8').replace(/<!-- @include ([\w-]+) -->/g, (whole, name) => {
      if (!parts.has(name)) throw new Error(`${join(dir, file)}: ${whole} names no file in ${includes}`);
      return parts.get(name);
    });
    writeFileSync(join(dir, file), text);
  }
  rmSync(includes, { recursive: true });
}
