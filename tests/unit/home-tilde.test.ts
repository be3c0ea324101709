import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../lib/cli/args';
import { cliCommand, cliForm, useGivenHome } from '../../lib/relay/invocation';
import { commandStateDir, expandHome, stateDirPath } from '../../lib/relay/paths';
import { readSettings } from '../../lib/config/settings';
import { BrowserGateway } from '../../lib/mcp/gateway';

/**
 * A `~` the shell left in a path (after `--home=`, or quoted) is the person's home folder (review 14c, F5): it made a
 * folder named `~` in the current one, unseen, and install wrote that path into the launcher, so the next command run
 * from elsewhere used another state folder.
 */
describe('a leading ~ in a path flag', () => {
  const home = os.homedir();

  it('is the home folder, in every path flag and in the code cache\'s reading of --home', () => {
    const { values } = parseFlags('export', ['--home=~/relay', '--out', '~', '--user-data-dir=~/profile'], {
      home: { type: 'string' },
      out: { type: 'string' },
      'user-data-dir': { type: 'string' },
    });
    expect(values).toEqual({ home: path.join(home, 'relay'), out: home, 'user-data-dir': path.join(home, 'profile') });
    expect(commandStateDir(['token', '--home=~/relay'], { homedir: '/home/al' })).toBe(path.join('/home/al', 'relay'));
  });

  it('only at the start and only alone or before a separator: ~user, a~b and a search word stay as typed', () => {
    expect(expandHome('~alice/x', '/home/al')).toBe('~alice/x');
    expect(expandHome('a/~/b', '/home/al')).toBe('a/~/b');
    expect(parseFlags('export', ['--search=~/x'], { search: { type: 'string' } }).values).toEqual({ search: '~/x' });
  });
});

describe('a leading ~ in COMET_RELAY_HOME and COMET_PATH, which an MCP client\'s JSON config never expands (review 14d, 6)', () => {
  it('is the home folder too', async () => {
    expect(stateDirPath({ env: { COMET_RELAY_HOME: '~/relay' }, platform: 'linux', homedir: '/home/al' })).toBe(path.join('/home/al', 'relay'));
    const g = new BrowserGateway({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tilde-')), settings: readSettings({ COMET_PATH: '~/no-such-browser', COMET_HOST_WAIT: '0' }), transport: 'stdio' });
    const error = await g.ensureBrowser().catch((e: Error) => e);
    g.close();
    expect((error as Error).message).toBe(`COMET_PATH is set to ${path.join(os.homedir(), 'no-such-browser')}, but no file is there. Point it at the Comet (or Chrome) executable.`);
  });
});

describe('the commands a run prints name the folder it uses when COMET_RELAY_HOME starts with ~ (review 14e, 1)', () => {
  it("--home in a hint is the home folder's, never <cwd>/~/relay", () => {
    useGivenHome(undefined); // the flags parsed above set this run's --home
    const env = { COMET_RELAY_HOME: '~/relay' };
    const used = stateDirPath({ env, platform: 'linux', homedir: os.homedir() });
    expect(cliForm({ env, platform: 'linux' }).home?.replace(/^'|'$/g, '')).toBe(used);
    expect(cliCommand('doctor', { env, platform: 'linux' })).toContain(`--home ${used}`);
  });
});

