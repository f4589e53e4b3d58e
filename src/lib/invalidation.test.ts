// Change announcements: every listener hears each key once, on the instance that made the change
// (at once) and on every other instance sharing the bus (through it), whatever the bus echoes back.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Invalidations } from './invalidation.js';
import { LocalBus } from './shared-state.js';

const noGap = (): void => undefined;

it('each key is heard once here and once on every other instance of the bus', () => {
  const bus = new LocalBus();
  const [here, there] = [new Invalidations(bus), new Invalidations(bus)];
  const heard = { here: [] as string[], there: [] as string[] };
  here.listen((key) => heard.here.push(key), noGap);
  there.listen((key) => heard.there.push(key), noGap);
  here.announce(['user:1', 'member:g:1']);
  there.announce(['app:7']);
  here.announce([]);
  assert.deepEqual(heard, {
    here: ['user:1', 'member:g:1', 'app:7'],
    there: ['user:1', 'member:g:1', 'app:7'],
  });
});

it('a message without its sender line (an older instance) is heard whole', () => {
  const bus = new LocalBus();
  const here = new Invalidations(bus);
  const heard: string[] = [];
  here.listen((key) => heard.push(key), noGap);
  bus.publish('cache:changed', 'user:1\nuser:2');
  assert.deepEqual(heard, ['user:1', 'user:2']);
});
