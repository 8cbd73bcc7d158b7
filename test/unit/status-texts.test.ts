import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeAPI } from 'node-red';
import { sharedTexts } from '../../nodes/shared/status';

describe('shared status texts', () => {
  it('translate each template once and fill in the values', () => {
    const asked: string[] = [];
    const RED = { _: (key: string) => (asked.push(key), key.endsWith('.ok') ? 'ok __ms__ ms' : 'retry __n__/__max__') } as unknown as NodeAPI;
    const t = sharedTexts(RED, 'status');
    assert.equal(t('ok', { ms: 5 }), 'ok 5 ms');
    assert.equal(t('ok', { ms: 12 }), 'ok 12 ms');
    assert.equal(t('retrying', { n: 2, max: 3 }), 'retry 2/3');
    assert.equal(t('retrying', { n: 2 }), 'retry 2/__max__', 'a missing value stays visible rather than vanishing');
    assert.equal(t('retrying'), 'retry __n__/__max__');
    assert.equal(t('retrying', { n: '__max__', max: 0 }), 'retry __max__/0', 'a value is not read as a placeholder');
    assert.deepEqual(asked, ['@lis-bridge/node-red-lis-bridge/lis-config:common.status.ok', '@lis-bridge/node-red-lis-bridge/lis-config:common.status.retrying']);
  });
});
