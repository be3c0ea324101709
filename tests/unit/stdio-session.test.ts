import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
import { runStdio } from '../../lib/mcp/stdio';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

/** A `comet-relay mcp` session on streams of the test's, with no host: only how it ends is looked at. */
function session() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'comet-relay-stdio-'));
  homes.push(home);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const ended = runStdio({ home, settings: readSettings({}), tools: [], stdin, stdout }).then(() => 'ended');
  return { stdin, ended };
}

const within = (promise: Promise<string>, ms = 2_000) => Promise.race([promise, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), ms))]);

describe('comet-relay mcp ends its session with its stdin', () => {
  it('at the end of stdin', async () => {
    const { stdin, ended } = session();
    stdin.end();
    expect(await within(ended)).toBe('ended');
  });

  it('when stdin fails instead of ending (a reset socket, EIO), and a later error throws nothing (review 10, crash F2)', async () => {
    const { stdin, ended } = session();
    stdin.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    expect(await within(ended)).toBe('ended');
    stdin.emit('error', new Error('EIO'));
  });
});
