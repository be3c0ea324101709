import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings, SETTING_RANGES } from '../../lib/config/settings';
import { MAX_TURN_ATTACHMENT_BYTES } from '../../lib/mcp/attachments/http';
import { methods } from '../../lib/protocol/methods';
import { pageMethods } from '../../lib/protocol/page/page-methods';
import { threadMethods } from '../../lib/protocol/threads/threads';
import { allTools, selectTools } from '../../lib/mcp/tools';
import { createFileLogger } from '../../lib/relay/logger';

describe('COMET_* settings', () => {
  it('keeps the reference defaults', () => {
    expect(readSettings({})).toMatchObject({
      COMET_PORT: 9222,
      COMET_TIMEOUT: 30_000,
      COMET_POLL_INTERVAL: 1000,
      COMET_SCREENSHOT_FORMAT: 'png',
      COMET_SCREENSHOT_QUALITY: 80,
    });
  });

  it('holds thread calls two minutes, with a progress beat of at most 15 s, and takes 25 MB attachments', () => {
    expect(readSettings({})).toMatchObject({
      COMET_THREAD_HOLD_MS: 120_000,
      COMET_THREAD_TASK_HOLD_MS: 1_200_000,
      COMET_THREAD_PROGRESS_MS: 10_000,
      COMET_THREAD_TABS: 6,
      COMET_ATTACHMENT_MAX_BYTES: 25 * 1024 * 1024,
    });
    expect(readSettings({ COMET_THREAD_HOLD_MS: '3000' }).COMET_THREAD_HOLD_MS).toBe(3000);
    expect(() => readSettings({ COMET_THREAD_PROGRESS_MS: '20000' })).toThrow(/COMET_THREAD_PROGRESS_MS="20000" is not valid/);
  });

  it('names the variable and the problem when a value is bad', () => {
    expect(() => readSettings({ COMET_SCREENSHOT_QUALITY: '180' })).toThrow(/COMET_SCREENSHOT_QUALITY="180" is not valid: .*Fix or unset it/);
    expect(() => readSettings({ COMET_SCREENSHOT_FORMAT: 'gif' })).toThrow(/COMET_SCREENSHOT_FORMAT/);
    expect(readSettings({ COMET_SCREENSHOT_FORMAT: '' }).COMET_SCREENSHOT_FORMAT).toBe('png');
  });
});

describe('tool selection', () => {
  it('offers the 13 comet_* tools and comet_export_thread, then the eleven thread tools, each with a title and a description', () => {
    expect(allTools.map((t) => t.name)).toEqual([
      'comet_connect',
      'comet_ask',
      'comet_poll',
      'comet_wait',
      'comet_stop',
      'comet_screenshot',
      'comet_mode',
      'comet_list_tabs',
      'comet_switch_tab',
      'comet_get_sources',
      'comet_list_conversations',
      'comet_open_conversation',
      'comet_get_page_content',
      'comet_export_thread',
      'call_perplexity_computer',
      'read_thread',
      'answer_question',
      'confirm_action_approve',
      'confirm_action_deny',
      'notify_connected',
      'models_list',
      'projects_list',
      'list_thread_assets',
      'create_asset_download',
      'create_attachment_upload',
    ]);
    for (const tool of allTools) expect(tool.title && tool.description).toBeTruthy();
  });

  it('applies an allowlist and the read-only preset', () => {
    expect(selectTools({ allow: ['comet_ask', 'comet_wait'] }).map((t) => t.name)).toEqual(['comet_ask', 'comet_wait']);
    const readOnly = selectTools({ readOnly: true }).map((t) => t.name);
    expect(readOnly).toContain('comet_poll');
    expect(readOnly).not.toContain('comet_ask');
    expect(readOnly).not.toContain('comet_stop');
    expect(readOnly).toEqual(expect.arrayContaining(['read_thread', 'models_list', 'projects_list', 'list_thread_assets', 'create_asset_download']));
    for (const acting of ['call_perplexity_computer', 'answer_question', 'confirm_action_approve', 'confirm_action_deny', 'notify_connected', 'create_attachment_upload']) {
      expect(readOnly).not.toContain(acting);
    }
  });

  it('rejects an unknown tool name, listing the known ones', () => {
    expect(() => selectTools({ allow: ['comet_fly'] })).toThrow(/Unknown tool name\(s\) in --tools: comet_fly\. Known tools: comet_connect/);
  });
});

describe('file logger', () => {
  it('rotates at the size limit and keeps a bounded number of files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-log-'));
    const log = createFileLogger({ dir, name: 'host', maxBytes: 200, keep: 2 });
    for (let i = 0; i < 20; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
    expect(fs.readdirSync(dir).sort()).toEqual(['host.log', 'host.log.1', 'host.log.2']);
    expect(fs.statSync(path.join(dir, 'host.log')).size).toBeLessThanOrEqual(200);
    expect(fs.readFileSync(path.join(dir, 'host.log'), 'utf8')).toContain('line 19');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never throws, even when its folder cannot be written', () => {
    const log = createFileLogger({ dir: '/dev/null/comet-relay', name: 'host' });
    expect(() => log.error('still fine')).not.toThrow();
  });
});

describe('serve', () => {
  it('says which port is taken and what to do', async () => {
    const { startHttpServer } = await import('../../lib/mcp/http');
    const options = { home: os.tmpdir(), settings: readSettings({}), tools: allTools, token: 'x'.repeat(43) };
    const first = await startHttpServer({ ...options, port: 0 });
    await expect(startHttpServer({ ...options, port: first.port })).rejects.toMatchObject({
      code: 'CONFIG_ERROR',
      message: expect.stringMatching(new RegExp(`Port ${first.port} .* already in use.*--port`)),
    });
    await first.close();
  });
});

describe('every limit setting accepts only what the code behind it can do', () => {
  /**
   * What consumes each numeric setting, as the consumer checks it: a setting's largest (and
   * smallest) value must pass there. A setting whose consumer has no limit of its own says so
   * with `undefined`; a new setting fails this test until it is listed.
   */
  const consumers: Record<string, ((value: number) => boolean) | undefined> = {
    COMET_PORT: undefined, // kept for compatibility, used by nothing
    COMET_TIMEOUT: undefined, // a timer
    COMET_POLL_INTERVAL: (v) => pageMethods['page.wait'].params.safeParse({ stallMs: Math.max(100, v * 10) }).success,
    COMET_MAX_RECONNECT: undefined,
    COMET_RECONNECT_DELAY: undefined,
    COMET_SCREENSHOT_QUALITY: (v) => methods['tabs.capture'].params.safeParse({ format: 'jpeg', quality: v }).success,
    COMET_HOST_WAIT: undefined,
    COMET_THREAD_HOLD_MS: (v) => threadMethods['threads.wait'].params.safeParse({ threadId: 'abc', timeoutMs: v }).success,
    COMET_THREAD_TASK_HOLD_MS: (v) => threadMethods['threads.wait'].params.safeParse({ threadId: 'abc', timeoutMs: v }).success,
    COMET_THREAD_PROGRESS_MS: undefined,
    COMET_THREAD_TABS: (v) =>
      (['threads.start', 'threads.send', 'threads.respond', 'threads.wait', 'threads.state'] as const).every(
        (m) => threadMethods[m].params.safeParse({ threadId: 'abc', message: 'x', reply: { kind: 'connected', message: '' }, timeoutMs: 1, tabCap: v }).success,
      ),
    // An upload larger than one turn takes could never go with any turn.
    COMET_ATTACHMENT_MAX_BYTES: (v) => v <= MAX_TURN_ATTACHMENT_BYTES,
    COMET_ATTACHMENT_TTL_MS: (v) => v <= 2 ** 31 - 1,
    COMET_ATTACHMENT_MAX_FILES: undefined,
    COMET_ATTACHMENT_MAX_TOTAL_BYTES: undefined,
    COMET_SESSION_IDLE_TIMEOUT: (v) => v <= 2 ** 31 - 1, // setTimeout's largest delay
    COMET_MAX_SESSIONS: undefined,
    COMET_MAX_PUBLIC_SESSIONS: undefined,
  };

  /** Settings another setting's range depends on, set so that the walk can reach the edges. */
  const companions: Record<string, Record<string, string>> = { COMET_ATTACHMENT_MAX_TOTAL_BYTES: { COMET_ATTACHMENT_MAX_BYTES: '1' } };

  it('lists every numeric setting with its range, and nothing else', () => {
    expect(Object.keys(SETTING_RANGES).sort()).toEqual(Object.keys(consumers).sort());
  });

  it.each(Object.entries(SETTING_RANGES))('%s: its whole range works where it is used, and a value outside is refused naming the range', (name, range) => {
    const check = consumers[name];
    for (const value of [range.min, range.max]) {
      expect(readSettings({ ...companions[name], [name]: String(value) })[name as keyof ReturnType<typeof readSettings>], `${name}=${value}`).toBe(value);
      if (check) expect(check(value), `${name}=${value} where it is used`).toBe(true);
    }
    const words = new RegExp(`${name}="[^"]*" is not valid: must be a whole number from ${range.min} to ${range.max}\\b`);
    expect(() => readSettings({ ...companions[name], [name]: String(range.min - 1) })).toThrow(words);
    expect(() => readSettings({ ...companions[name], [name]: String(range.max + 1) })).toThrow(words);
    expect(() => readSettings({ ...companions[name], [name]: 'soon' })).toThrow(words);
    expect(() => readSettings({ ...companions[name], [name]: '1.5' })).toThrow(words);
  });

  it('settings that depend on each other are checked together', () => {
    expect(() => readSettings({ COMET_ATTACHMENT_MAX_BYTES: '2000', COMET_ATTACHMENT_MAX_TOTAL_BYTES: '1000' })).toThrow(
      /COMET_ATTACHMENT_MAX_TOTAL_BYTES="1000" is not valid: must be at least COMET_ATTACHMENT_MAX_BYTES \(2000\)/,
    );
  });

  it('the task hold over an hour, which threads.wait refuses, is refused when read', () => {
    expect(() => readSettings({ COMET_THREAD_TASK_HOLD_MS: '7200000' })).toThrow(/COMET_THREAD_TASK_HOLD_MS="7200000" is not valid: must be a whole number from 100 to 3600000/);
  });
});
