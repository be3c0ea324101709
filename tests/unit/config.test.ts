import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
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
  it('offers the 13 comet_* tools, then the eleven thread tools, each with a title and a description', () => {
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
