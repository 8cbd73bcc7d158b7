// What the test runner reads from node:test's TAP output, read from real output of the Node running the suite: the closing counts and each failed test's path, message and place.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tapCounts, tapFailures } from '../runner/tap';

const FILE = `
const { describe, it, before } = require('node:test');
const assert = require('node:assert');
describe('outer', () => {
  it('passes', () => {});
  it('fails here', () => { assert.strictEqual(1, 2, 'the results of one sample went out twice'); });
  describe('inner', () => {
    it('throws', () => { throw new Error('boom\\nsecond line'); });
  });
  describe('a hook', () => {
    before(() => { throw new Error('no Node-RED'); });
    it('never runs', () => {});
  });
  it("it's quoted", () => { throw new Error('one line'); });
});
`;

describe('the runner reading TAP', () => {
  let dir: string;
  let tap: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-tap-'));
    writeFileSync(join(dir, 'sample.test.js'), FILE);
    tap = await new Promise<string>((resolve) => {
      // It exits 1: its tests fail on purpose. Without NODE_TEST_CONTEXT (set for this file by its own runner) it writes TAP, not node:test's wire format.
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      execFile(process.execPath, ['--test', '--test-reporter=tap', 'sample.test.js'], { cwd: dir, env }, (_err, stdout) => resolve(stdout));
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts what node:test counted', () => {
    const c = tapCounts(tap);
    assert.ok(c, 'closing counts found');
    assert.deepEqual([c.tests, c.pass, c.fail, c.cancelled], [5, 1, 3, 1]);
  });

  it("names each failed test by its suites, with its message and its line in the test file; a suite failing for its subtests is not listed again, nor a test its parent cancelled", () => {
    const found = tapFailures(tap);
    const byName = new Map(found.map((f) => [f.path.join(' › '), f]));
    assert.deepEqual([...byName.keys()], ['outer › fails here', 'outer › inner › throws', 'outer › a hook', "outer › it's quoted"]);

    const twice = byName.get('outer › fails here')!;
    assert.equal(twice.error[0], 'the results of one sample went out twice');
    assert.ok(twice.error.includes('1 !== 2'), twice.error.join('|'));
    assert.match(twice.at, /sample\.test\.js:6:/);

    assert.deepEqual(byName.get('outer › inner › throws')!.error, ['boom', 'second line']);
    assert.deepEqual(byName.get("outer › it's quoted")!.error, ['one line']);
  });

  it("reports a failed hook on its suite, with the hook's error; the tests it cancelled are not listed", () => {
    const hook = tapFailures(tap).find((f) => f.path.join(' › ') === 'outer › a hook');
    assert.ok(hook, JSON.stringify(tapFailures(tap)));
    assert.equal(hook.failureType, 'hookFailed');
    assert.deepEqual(hook.error, ['no Node-RED']);
    assert.match(hook.at, /sample\.test\.js:11:/);
  });
});
