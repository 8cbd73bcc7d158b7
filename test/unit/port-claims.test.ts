// Which link keeps a serial device two links read (lib/link/port-claims.ts): one keeps it, the others refuse the line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PortClaims } from '../../lib/link';

describe('PortClaims', () => {
  it('lets a link read a device no other link reads', () => {
    const c = new PortClaims();
    c.claim('a', 'A', 0, ['/dev/ttyUSB0']);
    c.claim('b', 'B', 1, ['/dev/ttyUSB1']);
    assert.equal(c.clash('a'), undefined);
    assert.equal(c.clash('b'), undefined);
    assert.deepEqual(c.keeper('/dev/ttyUSB0'), { link: 'a', name: 'A' });
  });

  it('of links started together, the first in the flows keeps the device, whatever order they claim in', () => {
    for (const order of [['a', 'b', 'c'], ['c', 'b', 'a'], ['b', 'c', 'a']]) {
      const c = new PortClaims();
      const place = { a: 2, b: 0, c: 5 } as Record<string, number>;
      for (const link of order) c.claim(link, link.toUpperCase(), place[link]!, ['/dev/ttyUSB0']);
      assert.equal(c.clash('b'), undefined, order.join());
      assert.deepEqual(c.clash('a'), { device: '/dev/ttyUSB0', keeper: { link: 'b', name: 'B' } });
      assert.deepEqual(c.clash('c'), { device: '/dev/ttyUSB0', keeper: { link: 'b', name: 'B' } });
    }
  });

  it('at the same place (links of one subflow), the lowest node id keeps it', () => {
    const c = new PortClaims();
    c.claim('z', 'Z', 1, ['/dev/ttyS0']);
    c.claim('m', 'M', 1, ['/dev/ttyS0']);
    assert.equal(c.clash('m'), undefined);
    assert.equal(c.clash('z')?.keeper.link, 'm');
  });

  it('a link already reading the device keeps it against a copy deployed later, even one earlier in the flows', () => {
    const c = new PortClaims();
    c.nextGeneration();
    c.claim('late', 'first tab', 5, ['/dev/ttyUSB0']);
    c.nextGeneration();
    c.claim('late', 'first tab', 5, ['/dev/ttyUSB0']);
    c.claim('copy', 'copy', 0, ['/dev/ttyUSB0']);
    assert.equal(c.clash('late'), undefined);
    assert.deepEqual(c.clash('copy'), { device: '/dev/ttyUSB0', keeper: { link: 'late', name: 'first tab' } });
  });

  it('a device a link moved to is new for it: the link already there keeps it', () => {
    const c = new PortClaims();
    c.claim('a', 'A', 0, ['/dev/ttyUSB0']);
    c.nextGeneration();
    c.claim('b', 'B', 1, ['/dev/ttyUSB1']);
    c.nextGeneration();
    c.claim('a', 'A', 0, ['/dev/ttyUSB1']);
    c.claim('b', 'B', 1, ['/dev/ttyUSB1']);
    assert.equal(c.clash('b'), undefined);
    assert.equal(c.clash('a')?.keeper.link, 'b');
  });

  it('the clash ends when the keeper is released or the refused link moves to its own device', () => {
    const c = new PortClaims();
    let changes = 0;
    const stop = c.onChange(() => changes++);
    c.claim('a', 'A', 0, ['/dev/ttyUSB0']);
    c.claim('b', 'B', 1, ['/dev/ttyUSB0']);
    assert.equal(c.clash('b')?.keeper.link, 'a');
    c.claim('b', 'B', 1, ['/dev/ttyUSB1']);
    assert.equal(c.clash('b'), undefined);
    c.claim('b', 'B', 1, ['/dev/ttyUSB0']);
    assert.equal(c.clash('b')?.keeper.link, 'a');
    c.release('a');
    assert.equal(c.clash('b'), undefined);
    assert.equal(changes, 5);
    stop();
    c.release('b');
    assert.equal(changes, 5);
    assert.equal(c.keeper('/dev/ttyUSB0'), undefined);
  });

  it('names the first device by path when a link reads several, and a link reading nothing claims nothing', () => {
    const c = new PortClaims();
    c.claim('a', 'A', 0, ['/dev/ttyUSB1', '/dev/ttyUSB0']);
    c.claim('b', 'B', 1, ['/dev/ttyUSB1', '/dev/ttyUSB0', '/dev/ttyUSB2']);
    assert.equal(c.clash('b')?.device, '/dev/ttyUSB0');
    let changes = 0;
    c.onChange(() => changes++);
    c.claim('idle', 'I', 2, []);
    assert.equal(changes, 0);
    assert.equal(c.clash('idle'), undefined);
  });
});
