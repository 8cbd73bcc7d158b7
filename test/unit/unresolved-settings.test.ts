import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SettingError, unresolvedNames, unresolvedSetting } from '../../lib/settings/unresolved';

describe('unresolved ${NAME} in settings', () => {
  it('finds each reference Node-RED left in a value, once', () => {
    assert.deepEqual(unresolvedNames('${A}'), ['A']);
    assert.deepEqual(unresolvedNames('tcp://${HOST}:${PORT}/${HOST}'), ['HOST', 'PORT']);
    assert.deepEqual(unresolvedNames('/dev/ttyUSB0'), []);
    assert.deepEqual(unresolvedNames(8181), []);
    assert.deepEqual(unresolvedNames(undefined), []);
  });

  it('says to set an unset variable, and that a set one is replaced only as the whole value', () => {
    const unset = unresolvedSetting('port', '${PORT_X}', 'a TCP port number', () => undefined)!;
    assert.deepEqual([unset.setting, unset.variable], ['port', 'PORT_X']);
    assert.match(unset.message, /environment variable PORT_X is not set: set PORT_X to a TCP port number/);
    const empty = unresolvedSetting('port', '${PORT_X}', 'a TCP port number', () => '')!;
    assert.match(empty.message, /PORT_X is not set/);
    const partial = unresolvedSetting('host', 'lab-${SITE}', "the analyzer's address", () => 'north')!;
    assert.match(partial.message, /Node-RED replaces \$\{SITE\} only when it is the whole value/);
    assert.equal(unresolvedSetting('port', '5000', 'a TCP port number'), undefined);
  });

  it('SettingError is NOT_CONFIGURED and names the fault with a variable first', () => {
    const err = new SettingError('bad', [{ setting: 'a', message: 'a is bad' }, { setting: 'b', variable: 'B', message: 'set B' }]);
    assert.equal(err.code, 'NOT_CONFIGURED');
    assert.deepEqual(err.errors, ['a is bad', 'set B']);
    assert.equal(err.named?.variable, 'B');
    assert.equal(new SettingError('bad', [{ message: 'older text' }]).named, undefined);
  });
});
