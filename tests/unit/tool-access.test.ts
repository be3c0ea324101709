import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
import { BrowserGateway, type ToolBrowser } from '../../lib/mcp/gateway';
import { toolAccess, type ToolContext } from '../../lib/mcp/tool';
import { allTools, selectTools } from '../../lib/mcp/tools';
import { accessOf, LOCAL_ACCESS, METHOD_ACCESS } from '../../lib/protocol/access';

/**
 * --read-only and the side panel's Read-only decide from one table (lib/protocol/access.ts): a tool
 * says which operations it uses, its access is derived from them, and the gateway holds every call
 * to what the tool declared.
 */
const known = new Set([...Object.keys(METHOD_ACCESS), ...Object.keys(LOCAL_ACCESS)]);

describe('every tool is classified through the operations it declares', () => {
  it('declares at least one known operation, and its read-only hint is derived, not typed in', () => {
    for (const tool of allTools) {
      expect(tool.uses.length, tool.name).toBeGreaterThan(0);
      for (const operation of tool.uses) expect(known.has(operation), `${tool.name} uses ${operation}`).toBe(true);
      const derived = tool.uses.every((operation) => METHOD_ACCESS[operation as keyof typeof METHOD_ACCESS] === 'read' || LOCAL_ACCESS[operation as keyof typeof LOCAL_ACCESS] === 'read')
        ? 'read'
        : 'act';
      expect(toolAccess(tool), tool.name).toBe(derived);
    }
  });

  it('--read-only keeps exactly the tools whose every operation always reads', () => {
    const kept = selectTools({ readOnly: true }).map((t) => t.name);
    expect(kept).toEqual(allTools.filter((t) => toolAccess(t) === 'read').map((t) => t.name));
    expect(kept).toEqual(expect.arrayContaining(['comet_poll', 'comet_wait', 'comet_get_sources', 'comet_list_tabs', 'comet_get_page_content']));
    // comet_mode can switch the mode (page.mode with a mode acts), so it is not offered.
    for (const acting of ['comet_connect', 'comet_ask', 'comet_stop', 'comet_mode', 'comet_switch_tab', 'comet_open_conversation']) expect(kept).not.toContain(acting);
  });

  it('each read tool, run with its smallest arguments, calls only read operations it declared', async () => {
    for (const tool of selectTools({ readOnly: true })) {
      const calls: string[] = [];
      const browser = new Proxy({} as ToolBrowser, {
        get: (_target, name: string) => async (method?: string) => {
          calls.push(name === 'call' ? String(method) : name === 'hostStatus' ? 'host.status' : 'browser.launch');
          throw new Error('stop here');
        },
      });
      const args = z.object(tool.inputSchema).parse(minimalArgs(tool.inputSchema));
      const context = { browser, session: {}, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
      await tool.handler(args, context).catch(() => {});
      for (const call of calls) {
        expect(tool.uses, `${tool.name} → ${call}`).toContain(call);
        expect(accessOf(call), `${tool.name} → ${call}`).toBe('read');
      }
    }
  });
});

describe('the gateway holds a tool to what it declared', () => {
  const gateway = (readOnly: boolean) =>
    new BrowserGateway({ home: '/nonexistent-comet-relay-home', settings: { ...readSettings({}), COMET_HOST_WAIT: 0 }, transport: 'stdio', readOnly });

  it('an undeclared operation is refused before anything is sent', async () => {
    const scoped = gateway(false).scoped({ tool: 'comet_poll' }, ['page.poll']);
    await expect(scoped.call('page.ask', { prompt: 'x' })).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/comet_poll.*page\.ask.*does not declare/) });
  });

  it('with --read-only an acting call is refused even from a tool that declares it', async () => {
    const scoped = gateway(true).scoped({ tool: 'comet_mode' }, ['page.mode', 'tabs.navigate']);
    await expect(scoped.call('page.mode', { mode: 'computer' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/--read-only/) });
    const connect = gateway(true).scoped({ tool: 'comet_connect' }, ['browser.launch', 'tabs.ensurePerplexity']);
    await expect(connect.ensureBrowser()).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/start a browser/) });
    // A read gets through to the relay (which then finds no browser here).
    await expect(scoped.call('page.mode', {})).rejects.toMatchObject({ code: 'EXTENSION_NOT_CONNECTED' });
  });
});

describe('the gateway starting a browser itself', () => {
  it('runs beforeLaunch (Comet\'s Local State switch) with the executable, before the browser starts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-launch-'));
    try {
      const marker = path.join(dir, 'started');
      const executable = path.join(dir, 'comet');
      fs.writeFileSync(executable, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
      const seen: { executable: string; startedYet: boolean }[] = [];
      const gateway = new BrowserGateway({
        home: path.join(dir, 'home'),
        settings: { ...readSettings({}), COMET_HOST_WAIT: 0, COMET_TIMEOUT: 1000, COMET_PATH: executable },
        transport: 'stdio',
        beforeLaunch: (file) => {
          seen.push({ executable: file, startedYet: fs.existsSync(marker) });
          return 'switch set';
        },
      });
      // No extension ever connects here: the launch is reported as failed, after beforeLaunch ran first.
      await expect(gateway.ensureBrowser()).rejects.toMatchObject({ code: 'COMET_LAUNCH_FAILED' });
      expect(seen).toEqual([{ executable, startedYet: false }]);
      gateway.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a caller that cancelled while the host was looked for starts no browser and changes nothing (relay review R2)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-launch-'));
    try {
      const marker = path.join(dir, 'started');
      const executable = path.join(dir, 'comet');
      fs.writeFileSync(executable, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
      let prepared = 0;
      const gateway = new BrowserGateway({
        home: path.join(dir, 'home'),
        settings: { ...readSettings({}), COMET_HOST_WAIT: 5000, COMET_TIMEOUT: 1000, COMET_PATH: executable },
        transport: 'stdio',
        beforeLaunch: () => {
          prepared++;
          return 'switch set';
        },
      });
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 100);
      const started = Date.now();
      await expect(gateway.ensureBrowser(cancel.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
      // The cancel ends the wait for a host at once, not at its end (day-7f review G1).
      expect(Date.now() - started).toBeLessThan(2000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect({ prepared, started: fs.existsSync(marker) }).toEqual({ prepared: 0, started: false });
      gateway.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The smallest arguments a tool accepts: required fields get the first plain value their schema takes. */
function minimalArgs(shape: z.ZodRawShape): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    if (z.safeParse(schema, undefined).success) continue;
    args[key] = ['x', 1, { x: 'x' }, ['x']].find((value) => z.safeParse(schema, value).success);
  }
  return args;
}
