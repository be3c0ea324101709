import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { install, uninstall } from '../../lib/install/install';
import { Attachments } from '../../lib/mcp/attachments/http';
import { AttachmentStore } from '../../lib/mcp/attachments/store';
import { linuxInstallHome } from '../support/install-home';

/**
 * `uninstall --purge` removes what comet-relay made, and only that. Files agents uploaded for
 * Computer (create_attachment_upload: a person's documents) are comet-relay's copies: they go too,
 * expired or not; a folder in attachments/ that is not one of ours stays, and what stays is named.
 */
const linuxSetup = () => linuxInstallHome('purge');

describe('uninstall --purge and uploaded attachments', () => {
  it('removes every upload it made, and keeps (and names) what it did not make', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: ['chromium'] });
    const state = report.stateDir;
    const store = new AttachmentStore({ home: state, maxBytes: 1000, ttlMs: 3_600_000 });
    const attachments = new Attachments({ store, base: async () => 'http://127.0.0.1:1' });
    const envelope = await attachments.envelope({ filename: 'contract.pdf', mimeType: 'application/pdf', sizeBytes: 6 });
    const claim = store.claim(envelope.upload_fields.key, envelope.upload_fields.token);
    fs.writeFileSync(claim.partialPath, 'secret');
    claim.commit(6);
    await attachments.envelope({ filename: 'never-uploaded.txt', mimeType: 'text/plain', sizeBytes: 1 });
    // Not ours: a folder named like an upload without our meta.json, and a file beside them.
    const foreign = path.join(state, 'attachments', '0b0b0b0b-1111-4222-8333-444444444444');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'data'), 'not ours');
    fs.writeFileSync(path.join(state, 'attachments', 'README'), 'not ours');

    const purge = await uninstall({ ...setup, purge: true });
    expect(purge.ok).toBe(true);
    const left = fs.readdirSync(path.join(state, 'attachments')).sort();
    expect(left).toEqual(['0b0b0b0b-1111-4222-8333-444444444444', 'README']);
    expect(fs.readFileSync(path.join(foreign, 'data'), 'utf8')).toBe('not ours');
    expect(purge.lines.join('\n')).toMatch(/kept .*attachments .*not created by comet-relay/);
  });

  it('with only its own uploads there (and the empty packs folder every host makes), the state folder is gone afterwards', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: ['chromium'] });
    const store = new AttachmentStore({ home: report.stateDir, maxBytes: 1000, ttlMs: 3_600_000 });
    await new Attachments({ store, base: async () => 'http://127.0.0.1:1' }).envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1 });
    fs.mkdirSync(path.join(report.stateDir, 'selectors'));
    expect((await uninstall({ ...setup, purge: true })).ok).toBe(true);
    expect(fs.existsSync(report.stateDir)).toBe(false);
  });

  it('selector sets the person added stay, and the report says where and how to remove them', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: ['chromium'] });
    fs.mkdirSync(path.join(report.stateDir, 'selectors'));
    fs.writeFileSync(path.join(report.stateDir, 'selectors', 'selector-set.gen-b-2026-12.json'), '{}');
    const purge = await uninstall({ ...setup, purge: true });
    expect(fs.existsSync(path.join(report.stateDir, 'selectors', 'selector-set.gen-b-2026-12.json'))).toBe(true);
    expect(purge.lines.join('\n')).toMatch(/kept .*selectors .*you added.*selectors remove/);
  });
});
