import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
import { BrowserGateway } from '../../lib/mcp/gateway';

/**
 * A browser path that exists but cannot be run is said as such, at once (review 14c, F2): COMET_PATH naming the macOS
 * app bundle (a folder) or a file without the execute bit was spawned, failed into the log, and the call waited all
 * of COMET_TIMEOUT to answer "Started <path>, but its comet-relay extension did not connect", which blamed the
 * extension for a browser that never started.
 */
function gateway(settings: Record<string, string>, candidates?: string[]) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'comet-launch-'));
  return new BrowserGateway({
    home,
    settings: readSettings({ COMET_TIMEOUT: '5000', COMET_HOST_WAIT: '0', ...settings }),
    transport: 'stdio',
    ...(candidates ? { browserCandidates: () => candidates } : {}),
  });
}

async function failure(g: BrowserGateway): Promise<{ code?: string; message: string }> {
  const error = await g.ensureBrowser().then(
    () => new Error('it said a browser was connected'),
    (e: Error & { code?: string }) => e,
  );
  g.close();
  return { code: (error as { code?: string }).code, message: error.message };
}

function notExecutable(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'comet-noexec-')), 'comet');
  fs.writeFileSync(file, 'not a program\n', { mode: 0o644 });
  return file;
}

describe('a browser that cannot be started', () => {
  it('COMET_PATH naming a folder (an .app bundle) is refused before anything starts, and says where to point it', async () => {
    const app = fs.mkdtempSync(path.join(os.tmpdir(), 'Comet.app-'));
    const got = await failure(gateway({ COMET_PATH: app }));
    expect(got.code).toBe('COMET_NOT_FOUND');
    expect(got.message).toBe(`COMET_PATH is set to ${app}, a folder: point it at the executable itself (on macOS the one inside the app, …/Comet.app/Contents/MacOS/Comet).`);
  });

  it('COMET_PATH naming a file without the execute bit is refused, and says to make it executable', async () => {
    const file = notExecutable();
    const got = await failure(gateway({ COMET_PATH: file }));
    expect(got.code).toBe('COMET_NOT_FOUND');
    expect(got.message).toMatch(/^COMET_PATH is set to .*, which cannot be run \(EACCES\): make it executable \(chmod \+x\)/);
  });

  it('a found browser that fails to start says so at once, not after COMET_TIMEOUT as an extension that did not connect', async () => {
    const got = await failure(gateway({}, [notExecutable()]));
    expect(got.code).toBe('COMET_LAUNCH_FAILED');
    expect(got.message).toMatch(/^Could not start .*comet: spawn .* EACCES\. Set COMET_PATH to the Comet \(or Chrome\) executable/);
  });
});
