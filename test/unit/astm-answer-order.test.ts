import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerOrder } from '../../lib/protocols/astm/lab';

describe('AnswerOrder', () => {
  it('lets an anonymous answer go only for the oldest open query of its link', () => {
    const order = new AnswerOrder(1000);
    order.queried('a', ['S1', 'S2'], 0);
    order.queried('b', ['T1'], 0);
    assert.equal(order.isOldest('a', 'S2', 10), false);
    assert.equal(order.isOldest('b', 'T1', 10), true, 'links are independent');
    order.settled('a', 'S1');
    assert.equal(order.isOldest('a', 'S2', 20), true);
  });

  it('forgets queries past the analyzer deadline, as the analyzer does', () => {
    const order = new AnswerOrder(1000);
    order.queried('a', ['S1'], 0);
    order.queried('a', ['S2'], 500);
    assert.equal(order.nextDeadline(600), 1000);
    assert.equal(order.isOldest('a', 'S2', 1001), true);
    assert.equal(order.isOpen('a', 'S1', 1001), false);
    assert.equal(order.isOpen('a', 'S2', 1501), false);
    assert.equal(order.nextDeadline(1501), undefined);
  });

  it('moves a sample queried again to the back of the line', () => {
    const order = new AnswerOrder(1000);
    order.queried('a', ['S1', 'S2'], 0);
    order.queried('a', ['S1'], 10);
    assert.equal(order.isOldest('a', 'S2', 20), true);
  });
});
