import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
import { BrowserGateway } from '../../lib/mcp/gateway';
import { onDemandAttachments } from '../../lib/mcp/attachments/http';
import { createSessionServer } from '../../lib/mcp/server';
import { allTools } from '../../lib/mcp/tools';
import { RelayError } from '../../lib/protocol/errors';

/**
 * create_attachment_upload asks the browser (`attachments.admit`) before it stores anything: what a caller reads
 * when the browser cannot be asked, and that nothing is left behind then (review 11a, R2 to R5).
 */
let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-admit-'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));
const folders = () => (fs.existsSync(path.join(home, 'attachments')) ? fs.readdirSync(path.join(home, 'attachments')) : []);

/** A browser whose answer to attachments.admit the test scripts. */
class ScriptedBrowser extends BrowserGateway {
  asked = 0;
  answer: (options?: { signal?: AbortSignal }) => Promise<unknown> = async () => ({});
  override call(method: string, _params: unknown, options?: { signal?: AbortSignal }): Promise<never> {
    if (method !== 'attachments.admit') throw new Error(`unexpected ${method}`);
    this.asked++;
    return this.answer(options) as Promise<never>;
  }
  override identify(): void {}
}

async function session(settings: Partial<ReturnType<typeof readSettings>> = {}) {
  const s = { ...readSettings({}), COMET_HOST_WAIT: 0, ...settings };
  const browser = new ScriptedBrowser({ home, settings: s, transport: 'stdio' });
  const local = onDemandAttachments({ home, settings: s });
  const server = createSessionServer({ tools: allTools, settings: s, gateway: browser, attachments: local.attachments });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'uploader', version: '1' });
  await client.connect(clientSide);
  const envelope = (signal?: AbortSignal) =>
    client.callTool({ name: 'create_attachment_upload', arguments: { filename: 'c.pdf', mime_type: 'application/pdf', size_bytes: 5 } }, undefined, { signal }) as Promise<{
      isError?: boolean;
      content: { text: string }[];
    }>;
  const close = async () => {
    await client.close();
    await local.close();
  };
  return { browser, envelope, close };
}

describe("the browser's leave to store an upload", () => {
  it('an extension older than the method: named as such, nothing stored', async () => {
    const s = await session();
    s.browser.answer = async () => {
      throw new RelayError('INVALID_PARAMS', 'The extension has no method "attachments.admit". Are the extension and comet-relay the same version?');
    };
    try {
      const refused = await s.envelope();
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^\[VERSION_MISMATCH\] The browser's comet-relay extension is older than this comet-relay .* so none was\. Reload or update the extension/);
      expect(folders()).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('a browser that does not answer: says nothing was stored and what to do', async () => {
    const s = await session();
    s.browser.answer = async () => {
      throw new RelayError('TIMEOUT', 'The browser did not answer attachments.admit within 10000 ms.');
    };
    try {
      const refused = await s.envelope();
      expect(refused.content[0]?.text).toMatch(/^\[TIMEOUT\] The browser did not say within 10 s whether files may be stored for an upload, so none was\. Call again; if it happens again, run `.*doctor`/);
      expect(folders()).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('the caps come before the browser is asked: a refusal there is never shown to the person as allowed', async () => {
    const s = await session({ COMET_ATTACHMENT_MAX_FILES: 1 });
    try {
      expect((await s.envelope()).isError).toBeFalsy();
      const refused = await s.envelope();
      expect(refused.content[0]?.text).toMatch(/^\[INVALID_PARAMS\] .*COMET_ATTACHMENT_MAX_FILES/);
      expect(s.browser.asked).toBe(1);
      expect(folders()).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('a call cancelled while the browser said yes makes no envelope', async () => {
    const s = await session();
    const controller = new AbortController();
    s.browser.answer = async () => {
      // The yes is on its way back as the client cancels.
      queueMicrotask(() => controller.abort());
      return {};
    };
    try {
      await expect(s.envelope(controller.signal)).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(s.browser.asked).toBe(1);
      expect(folders()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
