import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Attachments } from '../../lib/mcp/attachments/http';
import { AttachmentStore } from '../../lib/mcp/attachments/store';
import { FrameDecoder } from '../../lib/protocol/framing';
import { FramedConnection } from '../../lib/relay/connection';

/**
 * A message too large for the next hop must fail where it is made, with an answer that says so:
 * the receiving decoder skips an oversized frame without ever seeing its id, so the caller of a
 * request sent that way waited out its whole timeout (90 s for a thread call) and then heard
 * "timeout" instead of what was wrong.
 */
describe('frames over the limit are refused by the sender', () => {
  it('send throws MESSAGE_TOO_LARGE naming the size and the limit, and writes nothing', () => {
    const output = new PassThrough();
    const written: Buffer[] = [];
    output.on('data', (chunk: Buffer) => written.push(chunk));
    const connection = new FramedConnection(new PassThrough(), output, { onMessage: () => {} }, 1000);
    expect(() => connection.send({ kind: 'request', id: 'r1', method: 'threads.start', params: { message: 'x'.repeat(2000) } })).toThrow(
      expect.objectContaining({ code: 'MESSAGE_TOO_LARGE', message: expect.stringMatching(/2\d{3} bytes.*1000/) }),
    );
    expect(written).toEqual([]);
    expect(connection.send({ kind: 'request', id: 'r2', method: 'page.poll', params: {} })).toBe(true);
    const frames = new FrameDecoder(1000).push(Buffer.concat(written));
    expect(frames).toEqual([{ ok: true, value: { kind: 'request', id: 'r2', method: 'page.poll', params: {} } }]);
  });
});

describe('attachments of one turn fit in one message', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-msg-size-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  /** An uploaded file of `size` bytes, as create_attachment_upload and the POST would leave it. */
  async function uploaded(attachments: Attachments, store: AttachmentStore, name: string, size: number): Promise<string> {
    const envelope = await attachments.envelope({ filename: name, mimeType: 'application/octet-stream', sizeBytes: size });
    const claim = store.claim(envelope.upload_fields.key, envelope.upload_fields.token);
    fs.writeFileSync(claim.partialPath, Buffer.alloc(size, 7));
    claim.commit(size);
    return envelope.attachment_url;
  }

  it('files that together exceed what one turn carries are refused up front, naming the total and the limit', async () => {
    const store = new AttachmentStore({ home, maxBytes: 1000, ttlMs: 60_000 });
    const attachments = new Attachments({ store, base: async () => 'http://127.0.0.1:1', maxTurnBytes: 2500 });
    const urls = [await uploaded(attachments, store, 'a.bin', 1000), await uploaded(attachments, store, 'b.bin', 1000)];
    expect(attachments.payloads(urls)).toHaveLength(2);
    urls.push(await uploaded(attachments, store, 'c.bin', 1000));
    expect(() => attachments.payloads(urls)).toThrow(/attachment_urls: the files come to 3000 bytes together; at most 2500 bytes go with one turn/);
  });
});
