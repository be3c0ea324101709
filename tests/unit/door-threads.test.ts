import { expect, it } from 'vitest';
import { DoorThreads } from '../../lib/worker/threads/door-threads';

/** The public door's own threads, as a restarted worker finds them again (day-2 review M2). */
it('a restarted worker knows the threads the public door started, the newest 500 at most', async () => {
  const stored: { value?: unknown } = {};
  const store = {
    load: async () => stored.value,
    save: async (value: string[]) => {
      stored.value = value;
    },
  };
  const before = new DoorThreads(store);
  for (let i = 0; i < 502; i++) before.add(`task-${i}`);
  before.add('task-501');
  const after = new DoorThreads(store);
  await after.load();
  expect(after.has('task-501')).toBe(true);
  expect(after.has('task-2')).toBe(true);
  expect(after.has('task-1')).toBe(false);
  expect(after.has(undefined)).toBe(false);
  // A store that holds something else is no list of threads.
  stored.value = { not: 'a list' };
  const odd = new DoorThreads(store);
  await odd.load();
  expect(odd.has('task-501')).toBe(false);
});
