// Lint (issue 24): eslint's and typescript-eslint's recommended sets, not the
// type-checked ones, over the TypeScript the build compiles and over the editor
// JavaScript that nothing compiles (the dialogs' <script> blocks in nodes/*.html,
// the fragments in nodes/_include/ that scripts/build.mjs pastes into them, and
// nodes/editor/*.js served as they are). `npm run lint`; `npm test` runs it.
//
// typescript-eslint parses with the `typescript` package's JavaScript API, which
// TypeScript 7 (the native compiler the build uses, installed as
// `typescript-native`) does not have: `typescript` is 6.0 for this alone.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import html from 'eslint-plugin-html';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// What Node-RED's editor gives every dialog script.
const editorGlobals = {
  ...globals.browser,
  ...globals.jquery,
  RED: 'readonly',
};

// The functions (and the dialect section's property definition) the nodes/_include/*.js fragments declare: a dialog names one as
// a slash-star `@include` comment and uses what it declares, which only exist
// once scripts/build.mjs has pasted the fragment in.
const includedFunctions = {
  dialectPicker: 'readonly',
  dialectOverrides: 'readonly',
  mountDialectSection: 'readonly',
  closeDialectSection: 'readonly',
  linkText: 'readonly',
  registerLink: 'readonly',
  prepareLinkRows: 'readonly',
  LINK_DEFAULTS: 'readonly',
  mappingTable: 'readonly',
  validMapping: 'readonly',
  loadEditorScripts: 'readonly',
};

// The editor code keeps Node-RED's callback signatures whole (a validator's `function (v, opt)`)
// and its ES5 style's `catch (e)`: unused parameters and caught errors are not reported there.
const editorUnusedVars = { args: 'none', caughtErrors: 'none' };

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'test/artifacts/**', '.node-red/**', 'examples/**'] },
  // A directive left behind after its problem went away fails too, so none lingers.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },

  // TypeScript: the runtime, the nodes, the tests, the bench and the demo. lib/**
  // covers any layout under lib/ (lib/astm now, lib/protocols/astm later).
  {
    files: ['{lib,nodes,test,bench,demo}/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: globals.node },
    rules: {
      // tsc (strict) already reports undefined names, with types eslint does not see.
      'no-undef': 'off',
      // The build emits CommonJS; the require()s left load untyped Node-RED node files and
      // package.json files by a path computed at run time, which an import cannot.
      '@typescript-eslint/no-require-imports': 'off',
      // Node-RED's idiom: a node's constructor keeps `const node = this` for its callbacks
      // (and the simulators `self`); no other name.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['node', 'self'] }],
      // `const { dropped: _, ...rest } = x` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read the admin routes' JSON bodies as Record<string, any>; typing each is a rewrite, not a check.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },

  // Node scripts in plain JavaScript beside them (the demo launcher, the build and set-up scripts).
  {
    files: ['{demo,scripts,bench,test}/**/*.{js,cjs,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  // The simulator's launcher (bin/lis-analyzer-sim), named without an extension.
  {
    files: ['bin/lis-analyzer-sim'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs', 'bin/lis-analyzer-sim'],
    languageOptions: { sourceType: 'commonjs' },
  },

  // The dialogs: eslint-plugin-html lints each <script type="text/javascript">
  // (the text/html templates are left alone). The scripts of one file share
  // one scope, as in the page.
  {
    files: ['nodes/*.html'],
    plugins: { html },
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'script',
      globals: { ...editorGlobals, ...includedFunctions },
    },
    rules: { 'no-unused-vars': ['error', editorUnusedVars] },
  },

  // Editor code served or pasted as it is.
  {
    files: ['nodes/_include/*.js', 'nodes/editor/*.js'],
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'script',
      globals: editorGlobals,
    },
    rules: { 'no-unused-vars': ['error', editorUnusedVars] },
  },
  {
    files: ['nodes/_include/*.js'],
    rules: {
      // A fragment's top-level functions are used by the dialogs it is pasted into.
      'no-unused-vars': ['error', { vars: 'local', args: 'none', caughtErrors: 'none' }],
    },
  },

  // Last, so that it holds over the recommended sets above, for every file.
  {
    rules: {
      // New in eslint 10's recommended set. Our errors fold the caught error's message into their
      // own one-line text by design; a `cause` would make console.error print its stack beneath.
      'preserve-caught-error': 'off',
      // The protocols are made of control characters (STX, ETX, ENQ, VT, FS...): matching them is the point.
      'no-control-regex': 'off',
    },
  },
);
