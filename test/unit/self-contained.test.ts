/**
 * The repository tests itself with nothing beside it: no source reads or
 * cites a file outside the checkout (the shared intake the captures arrive
 * in, research notes, a design sketch, the interface specification's file),
 * and every capture in test/fixtures/astm and test/fixtures/hl7 has its
 * provenance row in test/fixtures/SOURCES.md (or SOURCES-added.md).
 *
 * The forbidden strings are assembled at run time, so this file's own text
 * does not contain them and the scan covers this file like any other.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fixtureDir, repoRoot } from '../support/fixtures';
import { hl7FixtureDir } from '../support/hl7-fixtures';

const ROOT = repoRoot();

/** What is scanned: every source and documentation folder, and the README. */
const SCANNED = ['lib', 'nodes', 'test', 'bench', 'demo', 'scripts', 'bin', 'docs', 'examples', 'flows', 'README.md'];

/**
 * Captures and the upstream source list are copied byte for byte and never
 * edited, so nothing found in them could be fixed here; they are data, not
 * citations of ours.
 */
const COPIED = (file: string): boolean => file.startsWith('test/fixtures/astm/') || file.startsWith('test/fixtures/hl7/') || file === 'test/fixtures/SOURCES.md';

const INTAKE = 'shared';
const MD = '.md';
const INTAKE_FOLDERS = '(?:fixtures|research|spec|hooks)';

/** Names of files that live only outside the repository. */
const OUTSIDE_FILES: { name: string; pattern: RegExp }[] = [
  { name: 'astm' + MD, pattern: new RegExp('\\bastm\\' + MD + '\\b', 'i') },
  { name: 'DESIGN' + MD, pattern: new RegExp('\\bDESIGN\\' + MD + '\\b') },
  { name: 'lis-interface-' + 'spec', pattern: new RegExp('\\blis-interface-' + 'spec\\b', 'i') },
  // The intake's folders named as a path, or built from quoted segments with join().
  { name: `${INTAKE}/<folder>`, pattern: new RegExp(`\\b${INTAKE}/${INTAKE_FOLDERS}\\b`) },
  { name: `'${INTAKE}', '<folder>'`, pattern: new RegExp(`['"\`]${INTAKE}['"\`]\\s*,\\s*['"\`]${INTAKE_FOLDERS}['"\`]`) },
];

/**
 * The intake's folder one level up. Fine only where it resolves, from the
 * citing file's folder, to a folder of the repository (nodes/shared, seen from
 * a subfolder of nodes).
 */
const PARENT_INTAKE = new RegExp(`\\.\\./${INTAKE}(?:/[\\w.-]+)*`, 'g');

interface Finding {
  file: string;
  line: number;
  what: string;
}

/** Every forbidden citation in one file's text (`file` relative to the root, with '/'). */
function findOutsidePaths(file: string, text: string): Finding[] {
  const found: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { name, pattern } of OUTSIDE_FILES) if (pattern.test(line)) found.push({ file, line: i + 1, what: name });
    for (const m of line.matchAll(PARENT_INTAKE)) {
      const folder = resolve(ROOT, dirname(file), '..', INTAKE);
      if (!(folder.startsWith(ROOT + sep) && existsSync(folder))) found.push({ file, line: i + 1, what: m[0] });
    }
  });
  return found;
}

/** The tracked files under SCANNED; without git (an unpacked archive), every file there but the ignored test output. */
function scannedFiles(): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--', ...SCANNED], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = out.split('\0').filter((f) => f !== '');
    if (files.length > 0) return files;
  } catch {
    // Not a git checkout: walk the folders instead.
  }
  const files: string[] = [];
  const walk = (rel: string): void => {
    const abs = join(ROOT, rel);
    if (!existsSync(abs) || rel === join('test', 'artifacts')) return;
    if (statSync(abs).isDirectory()) for (const name of readdirSync(abs)) walk(join(rel, name));
    else files.push(rel.split(sep).join('/'));
  };
  SCANNED.forEach(walk);
  return files;
}

describe('the repository is self-contained', () => {
  it('recognises each forbidden citation, and lets in-repository paths through', () => {
    const up = ['..', INTAKE].join('/');
    const bad = [
      `see ${up}/fixtures/astm`,
      `(${'astm' + MD} 1.4)`,
      `(${'DESIGN' + MD} conventions)`,
      `${INTAKE}/research/notes`,
      `join(dir, '${INTAKE}', 'fixtures', 'astm')`,
      `the ${'lis-interface-' + 'spec'}${MD} file`,
    ];
    for (const line of bad) assert.notDeepEqual(findOutsidePaths('test/unit/x.ts', line), [], line);
    const good = [
      "import { sharedTexts } from './shared/status';",
      "import { sharedTexts } from '../../nodes/shared/status';",
      'provenance in test/fixtures/SOURCES.md; why: docs/design-notes.md',
      'LIS interface specification 2.0.0, section 7',
      'a shared 2-core machine',
    ];
    for (const line of good) assert.deepEqual(findOutsidePaths('test/unit/x.ts', line), [], line);
    // From a subfolder of nodes, one level up to shared is the repository's own nodes/shared.
    assert.deepEqual(findOutsidePaths('nodes/sub/x.ts', `import type { Msg } from '${up}/types';`), []);
  });

  it('has no source that reads or cites a path outside the repository', () => {
    const files = scannedFiles().filter((f) => !COPIED(f));
    // Scanned even before it is committed: its own patterns must not trip it.
    const self = 'test/unit/self-contained.test.ts';
    if (!files.includes(self)) files.push(self);
    const findings: Finding[] = [];
    for (const file of files) {
      if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
      const bytes = readFileSync(join(ROOT, file));
      if (bytes.includes(0)) continue; // images: no text to cite anything
      findings.push(...findOutsidePaths(file, bytes.toString('utf8')));
    }
    assert.deepEqual(
      findings.map((f) => `${f.file}:${f.line}: ${f.what}`),
      [],
      'cite the standard and section, the vendor manual and page, test/fixtures/SOURCES.md, or docs/design-notes.md instead',
    );
  });

  /** The file names in the first cell of each table row of the section `## <title>` of each list that has one. */
  function listedIn(title: string): Set<string> {
    const listed = new Set<string>();
    let sections = 0;
    for (const list of ['SOURCES.md', 'SOURCES-added.md']) {
      const sources = readFileSync(join(ROOT, 'test', 'fixtures', list), 'utf8');
      const section = sources.split(/^## /m).find((s) => s.startsWith(title));
      if (section === undefined) continue;
      sections++;
      for (const l of section.split('\n')) if (l.startsWith('|')) listed.add((l.split('|')[1] ?? '').trim());
    }
    assert.ok(sections > 0, `SOURCES.md or SOURCES-added.md has a ${title} section`);
    return listed;
  }

  for (const { title, dir, folder } of [
    { title: 'ASTM', dir: fixtureDir, folder: 'test/fixtures/astm' },
    { title: 'HL7', dir: hl7FixtureDir, folder: 'test/fixtures/hl7' },
    { title: 'Result files', dir: () => join(ROOT, 'test', 'fixtures', 'file'), folder: 'test/fixtures/file' },
  ]) {
    it(`lists every capture in ${folder} in test/fixtures/SOURCES.md or SOURCES-added.md`, () => {
      const listed = listedIn(title);
      const files = readdirSync(dir()).sort();
      assert.ok(files.length > 0, `${folder} holds captures`);
      assert.deepEqual(
        files.filter((f) => !listed.has(f)),
        [],
        'captures without a row in SOURCES.md or SOURCES-added.md (copy the intake SOURCES.md along with new captures, or add a row to SOURCES-added.md)',
      );
      assert.equal(relative(ROOT, dir()).split(sep).join('/'), folder, 'the loader reads the repository copy');
    });
  }
});
