/**
 * The layers, as rules (docs/architecture.md, "Layers"): one core, protocols
 * beside it. `npm run deps` (scripts/deps.mjs, part of `npm test`) and
 * test/unit/layers.test.ts fail on any import that breaks them. They are
 * checked on the built JS (dist/): dependency-cruiser reads TypeScript only
 * through the TypeScript 5 API, which TypeScript 7 does not have, and the
 * built files hold every import that runs (type-only imports are erased
 * there, so a type-only import across the layers is left to review).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-protocol',
      comment: 'The core (lib/* but lib/protocols and lib/sim) knows no protocol: a protocol plugs into it through parameters and small interfaces.',
      severity: 'error',
      from: { path: '^dist/lib/', pathNot: '^dist/lib/(protocols|sim)/' },
      to: { path: '^dist/lib/protocols/' },
    },
    {
      name: 'protocol-imports-no-other-protocol',
      comment: 'A protocol builds on the core only, never on another protocol: what two share belongs in the core.',
      severity: 'error',
      from: { path: '^dist/lib/protocols/([^/]+)/' },
      to: { path: '^dist/lib/protocols/', pathNot: '^dist/lib/protocols/$1/' },
    },
    {
      name: 'nothing-runs-the-simulators',
      comment: 'The analyzer simulators (lib/sim) are for the demo, tests and bench: no node or core module depends on them.',
      severity: 'error',
      from: { path: '^dist/(lib|nodes)/', pathNot: '^dist/lib/sim/' },
      to: { path: '^dist/lib/sim/' },
    },
    {
      name: 'lib-imports-no-node-red',
      comment: 'lib/ is plain TypeScript: the nodes/ adapters are the only code that knows Node-RED.',
      severity: 'error',
      from: { path: '^dist/lib/' },
      to: { path: '(^|/)node_modules/(@types/)?(node-red|@node-red)(/|$)' },
    },
    {
      name: 'nodes-reach-lib-through-indexes',
      comment: 'nodes/ imports lib/<module> or lib/protocols/<protocol> (its index), never a file inside one: the index is what the adapters may use, and a module can move its files without touching nodes/. A single-file module (lib/errors) is its own index.',
      severity: 'error',
      from: { path: '^dist/nodes/' },
      to: { path: '^dist/lib/[^/]+/', pathNot: '^dist/lib/(protocols/[^/]+|(?!protocols/)[^/]+)/index\\.js$' },
    },
    {
      name: 'no-circular',
      comment: 'No module imports itself through others: a circle means two layers are one, or a piece sits in the wrong one.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\.map$' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'] },
  },
};
