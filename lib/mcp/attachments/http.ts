import fs from 'node:fs';
import http from 'node:http';
import type { Door } from '../../protocol/doors';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import type { Settings } from '../../config/settings';
import { RelayError } from '../../protocol/errors';
import { type AttachmentPayload, MAX_TURN_ATTACHMENT_BYTES } from '../../protocol/threads/threads';
import { allowedOrigin } from '../origin';
import { AttachmentStore, type ClaimedUpload, type Envelope, type EnvelopeRequest, filenameProblem, mimeTypeProblem, UploadRefused } from './store';

/**
 * The HTTP side of attachments: `POST {base}/attachments/upload` takes a multipart form (the
 * envelope's `key` and `token` fields, then a `file` part) the way an S3 presigned POST does, and
 * answers 204; `GET {base}/attachments/{id}/{name}` gives the file back. `comet-relay serve` mounts
 * this beside /mcp; `comet-relay mcp` opens a loopback listener for it the first time a client asks
 * for an envelope. Multipart parsing is @fastify/busboy's: streaming, with limits on parts, fields
 * and file size, so an oversized body is cut off instead of buffered.
 */

export const ATTACHMENTS_PREFIX = '/attachments/';

/** Handles a request under {base}/attachments/; `subpath` is what follows the base. */
export function handleAttachmentRequest(store: AttachmentStore, req: http.IncomingMessage, res: http.ServerResponse, subpath: string, door: Door = 'loopback'): void {
  if (subpath === `${ATTACHMENTS_PREFIX}upload`) {
    if (req.method === 'POST') void receiveUpload(store, req, res);
    else respond(res, 405, 'POST the multipart form to this URL.');
    return;
  }
  const download = /^\/attachments\/([0-9a-f-]{36})\/([^/]+)$/.exec(subpath);
  if (download && (req.method === 'GET' || req.method === 'HEAD')) {
    const stored = store.file(download[1] as string, door);
    if (!stored || encodeURIComponent(stored.meta.filename) !== download[2]) {
      respond(res, 404, 'No such attachment (never uploaded, expired, or another file name).');
      return;
    }
    sendFile(req, res, stored);
    return;
  }
  respond(res, 404, `Nothing at ${subpath}: uploads go to ${ATTACHMENTS_PREFIX}upload.`);
}

/**
 * Streams a stored file. The headers go out once the file is open, so a file removed meanwhile
 * (a sweep in another process, a purge, a tmp cleaner) is a 404; a read that fails later cuts
 * the connection, which the client sees as a short body. Either way the process lives on.
 */
function sendFile(req: http.IncomingMessage, res: http.ServerResponse, stored: { meta: { filename: string; sizeBytes?: number }; path: string }): void {
  const headers = {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(stored.meta.sizeBytes ?? 0),
    'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(stored.meta.filename)}`,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
  const unreadable = () => respond(res, 404, 'This attachment could not be read (it was removed or is unreadable): upload it again with create_attachment_upload.');
  if (req.method === 'HEAD') {
    if (!fs.existsSync(stored.path)) {
      unreadable();
      return;
    }
    res.writeHead(200, headers);
    res.end();
    return;
  }
  const file = fs.createReadStream(stored.path);
  file.once('open', () => {
    res.writeHead(200, headers);
    file.pipe(res);
  });
  file.on('error', () => {
    if (res.headersSent) res.destroy();
    else unreadable();
  });
  res.once('close', () => file.destroy());
}

async function receiveUpload(store: AttachmentStore, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const contentType = req.headers['content-type'];
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) {
    return refuse(req, res, new UploadRefused(415, 'Send multipart/form-data: every field of upload_fields, then the file under a part named "file".'));
  }
  // Counted on the body itself, before any token is checked: busboy cuts a field at fieldSize but reads all of it, so
  // an unauthenticated caller could have the whole server read an endless form (review 10, door M1).
  const bodyMax = store.maxBytes + FORM_OVERHEAD_BYTES;
  const tooLarge = () => new UploadRefused(413, `The form is larger than any upload may be (${bodyMax} bytes): send the upload_fields and one file of at most its envelope's max_bytes.`);
  if (Number(req.headers['content-length']) > bodyMax) return refuse(req, res, tooLarge(), { now: true });
  let parser: BusboyInstance;
  try {
    parser = new Busboy({
      headers: { ...req.headers, 'content-type': contentType },
      limits: { fields: 16, fieldSize: 4096, files: 1, parts: 20, fileSize: store.maxBytes },
    });
  } catch (error) {
    return refuse(req, res, new UploadRefused(400, `Unreadable multipart form: ${(error as Error).message}`));
  }

  const stop = new AbortController();
  const refusal = await new Promise<UploadRefused | undefined>((settle) => {
    const fields: Record<string, string> = {};
    let file: 'none' | 'writing' | 'stored' = 'none';
    let parsed = false;
    const fail = (error: unknown) =>
      settle(
        error instanceof UploadRefused
          ? error
          : new UploadRefused(400, `Unreadable multipart form (${(error as Error).message}): send every upload_fields field, then the whole file in a part named "file"; once a file part began, with a new envelope from create_attachment_upload.`),
      );
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (file !== 'none' || name !== 'file') {
        drain(stream);
        return fail(new UploadRefused(400, 'Send exactly one file part, named "file".'));
      }
      file = 'writing';
      let claim: ClaimedUpload;
      try {
        claim = store.claim(fields.key, fields.token);
      } catch (error) {
        drain(stream);
        return fail(error);
      }
      writeFile(stream, claim, Math.min(claim.meta.declaredBytes, store.maxBytes), stop.signal).then(
        () => {
          file = 'stored';
          if (parsed) settle(undefined);
        },
        (error: unknown) => {
          claim.abort();
          fail(error);
        },
      );
    });
    parser.on('partsLimit', () => fail(new UploadRefused(400, 'Too many parts: send the upload_fields and one file.')));
    parser.on('error', fail);
    parser.on('finish', () => {
      parsed = true;
      if (file === 'none') fail(new UploadRefused(400, 'The form had no part named "file".'));
      else if (file === 'stored') settle(undefined);
    });
    req.on('error', fail);
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyMax) fail(tooLarge());
    });
    req.pipe(parser);
  });
  if (refusal) {
    stop.abort();
    req.unpipe(parser);
    return refuse(req, res, refusal);
  }
  res.writeHead(204);
  res.end();
}

/** Reads a refused file part to its end, so busboy goes on; an error it meets then is the refusal's, already answered. */
function drain(stream: BusboyFileStream): void {
  stream.on('error', () => {});
  stream.resume();
}

/**
 * Streams one file part to disk, refusing it past `limit` bytes (its envelope's size_bytes, at most
 * the setting). The part's stream is never destroyed here: busboy keeps parsing the rest.
 */
function writeFile(stream: BusboyFileStream, claim: ClaimedUpload, limit: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(claim.partialPath, { flags: 'wx', mode: 0o600 });
    let size = 0;
    let over = false;
    const giveUp = (error: Error) => {
      if (over) return;
      over = true;
      stream.unpipe(out);
      stream.resume();
      // Rejected only once the file is closed, so the caller's abort() really removes it.
      out.once('close', () => reject(error));
      out.destroy();
    };
    const tooLarge = () =>
      giveUp(new UploadRefused(413, `The file is larger than ${limit} bytes: its envelope allows size_bytes ${claim.meta.declaredBytes}, and COMET_ATTACHMENT_MAX_BYTES is the most any envelope allows.`));
    signal.addEventListener('abort', () => giveUp(new UploadRefused(400, 'The upload was refused before the file was complete.')), { once: true });
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge();
    });
    // A form that ends inside the file part (a cut body, a client's bug) errors this stream: unheard, that error ended
    // the whole process, every session of both doors with it (threads review 2026-12-05, H1).
    stream.on('error', (error: Error) =>
      giveUp(new UploadRefused(400, `The upload ended before the file was complete (${error.message}): request a new envelope with create_attachment_upload and send the whole file again.`)),
    );
    stream.once('limit', tooLarge);
    // Our disk's failure is ours to say, never the client's form's (review 14c: a full disk at the commit read
    // "Unreadable multipart form").
    const notStored = (error: Error) =>
      new UploadRefused(500, `comet-relay could not store the file (${error.message}): check the free space and permissions of COMET_RELAY_HOME/attachments, then request a new envelope.`);
    out.once('error', (error) => {
      if (!over) reject(notStored(error));
    });
    out.once('finish', () => {
      if (over) return;
      try {
        claim.commit(size);
        resolve();
      } catch (error) {
        reject(error instanceof UploadRefused ? error : notStored(error as Error));
      }
    });
    stream.pipe(out);
  });
}

/** What a form may hold beside its file: the envelope's fields and each part's headers, with room to spare. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** How much of a refused body is read before answering; a client sending more has its connection cut. */
const REFUSED_BODY_DRAIN_BYTES = 1024 * 1024;

/**
 * Answers a refusal once the client has sent its whole body. A refusal is often decided early (the
 * token is checked at the file part's first bytes), and a server that answers and closes while the
 * client is still sending resets the connection: the client's next write fails with EPIPE, or the
 * reset discards the answer, and it never hears why. A body past the bound is not waited for: the
 * answer goes out at once and the connection closes behind it.
 */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, refusal: UploadRefused, { now = false } = {}): void {
  res.setHeader('Connection', 'close');
  const answer = () => respond(res, refusal.status, refusal.message);
  // `now`: a body refused by its declared size is not waited for (it may never come, or be a gigabyte).
  if (req.readableEnded || now) {
    answer();
    return;
  }
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) answer();
  });
  req.once('end', answer);
  req.resume();
}

function respond(res: http.ServerResponse, status: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`${message}\n`);
}

// ── what the tools see ────────────────────────────────────────────────────────

/** The attachment side of a session: make envelopes, and turn attachment_urls into payloads for the page. */
export interface AttachmentAccess {
  /** `admit`, when given, is asked once the request's fields are found sound and before anything is stored. */
  envelope(request: EnvelopeRequest, admit?: () => Promise<void>): Promise<Envelope>;
  /** Throws [INVALID_PARAMS] naming `attachment_urls[i]` for a URL that is not an upload of ours. */
  payloads(urls: readonly string[] | undefined): AttachmentPayload[];
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface AttachmentsOptions {
  store: AttachmentStore;
  /** The base (origin + path, no trailing slash) envelopes are issued under; may start a listener. */
  base(): Promise<string>;
  /** A public base (`serve --public-url`) whose URLs are accepted besides loopback ones. */
  publicBase?: string;
  /** The door of the sessions it serves (default loopback): their envelopes are that door's, and only its files attach. */
  door?: Door;
  /** Most bytes of files one turn takes (default MAX_TURN_ATTACHMENT_BYTES). */
  maxTurnBytes?: number;
}

export { MAX_TURN_ATTACHMENT_BYTES };

export class Attachments implements AttachmentAccess {
  constructor(private readonly options: AttachmentsOptions) {}

  async envelope(request: EnvelopeRequest, admit?: () => Promise<void>): Promise<Envelope> {
    const problem =
      fieldProblem('filename', filenameProblem(request.filename)) ??
      fieldProblem('mime_type', mimeTypeProblem(request.mimeType)) ??
      (request.sizeBytes > this.options.store.maxBytes
        ? `size_bytes ${request.sizeBytes} is over the limit of ${this.options.store.maxBytes} bytes (COMET_ATTACHMENT_MAX_BYTES).`
        : undefined);
    if (problem) throw new RelayError('INVALID_PARAMS', problem);
    // The caps before the browser is asked, so that its feed never shows as allowed an upload refused here (review 11a,
    // R2); create checks them again, as another process may have made envelopes meanwhile.
    this.options.store.checkRoomFor(request, this.options.door);
    await admit?.();
    return this.options.store.create(request, await this.options.base(), this.options.door);
  }

  payloads(urls: readonly string[] | undefined): AttachmentPayload[] {
    if (!urls?.length) return [];
    if (urls.length > 10) throw new RelayError('INVALID_PARAMS', `attachment_urls has ${urls.length} URLs; at most 10 go with one turn.`);
    this.options.store.sweep();
    const uploads = urls.map((url, index) => {
      try {
        return this.options.store.uploadFor(url, (candidate) => this.accepted(candidate), this.options.door);
      } catch (error) {
        const cause = RelayError.from(error);
        throw new RelayError('INVALID_PARAMS', `attachment_urls[${index}] (${url}) ${cause.message}.`);
      }
    });
    // Checked before any file is read: the files travel to the browser in one message.
    const limit = this.options.maxTurnBytes ?? MAX_TURN_ATTACHMENT_BYTES;
    const total = uploads.reduce((sum, upload) => sum + upload.sizeBytes, 0);
    if (total > limit) {
      throw new RelayError(
        'INVALID_PARAMS',
        `attachment_urls: the files come to ${total} bytes together; at most ${limit} bytes go with one turn. Send the rest with a follow-up message on the same thread_id.`,
      );
    }
    return uploads.map((upload) => this.options.store.payloadOf(upload));
  }

  private accepted(candidate: URL): boolean {
    const base = candidate.pathname.slice(0, candidate.pathname.lastIndexOf(ATTACHMENTS_PREFIX));
    if (candidate.protocol === 'http:' && LOOPBACK_HOSTS.has(candidate.hostname) && base === '') return true;
    const publicBase = this.options.publicBase;
    if (!publicBase) return false;
    const expected = new URL(publicBase);
    return candidate.origin === expected.origin && base === expected.pathname.replace(/\/$/, '');
  }
}

function fieldProblem(field: string, problem: string | undefined): string | undefined {
  return problem ? `${field} ${problem}.` : undefined;
}

/**
 * `comet-relay mcp`'s loopback listener for uploads, opened on first use: 127.0.0.1 on a free
 * port, Host checked (DNS rebinding), nothing but the upload POST served. It does not keep the
 * process alive.
 */
export async function startAttachmentListener(store: AttachmentStore): Promise<{ base: string; close(): Promise<void> }> {
  let port = 0;
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      req.resume();
      return respond(res, 403, `Host "${req.headers.host}" is not allowed: use 127.0.0.1:${port}.`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigin(origin, port)) {
      req.resume();
      return respond(res, 403, `Origin "${origin}" is not allowed to upload here.`);
    }
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      // A target such as `//[` is no path; thrown here it would end the MCP session's process.
      req.resume();
      return respond(res, 400, `The request target ${JSON.stringify(req.url)} is not a path: uploads go to ${ATTACHMENTS_PREFIX}upload.`);
    }
    // Uploads only: a download needs a bearer token (the file is a person's document and its URL travels in
    // transcripts), which `mcp` has none of; comet-relay reads the file itself when its attachment_url is passed
    // (review 10, door L1: this listener served any upload of the home, serve's too, to whoever had the URL).
    if (pathname !== `${ATTACHMENTS_PREFIX}upload`) {
      req.resume();
      return respond(res, 404, `This listener only takes uploads, at ${ATTACHMENTS_PREFIX}upload; pass an attachment_url to a tool, which reads the file itself.`);
    }
    handleAttachmentRequest(store, req, res, pathname);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A listening server's own errors are told, never thrown: the MCP session beside it lives on.
  server.on('error', (error) => process.stderr.write(`comet-relay: the upload listener failed: ${error.message}\n`));
  server.unref();
  port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface LocalAttachmentsOptions {
  home: string;
  settings: Pick<Settings, 'COMET_ATTACHMENT_MAX_BYTES' | 'COMET_ATTACHMENT_TTL_MS' | 'COMET_ATTACHMENT_MAX_FILES' | 'COMET_ATTACHMENT_MAX_TOTAL_BYTES'>;
}

/** The store under COMET_RELAY_HOME with the limits the settings give. */
export function attachmentStore({ home, settings }: LocalAttachmentsOptions): AttachmentStore {
  return new AttachmentStore({
    home,
    maxBytes: settings.COMET_ATTACHMENT_MAX_BYTES,
    ttlMs: settings.COMET_ATTACHMENT_TTL_MS,
    maxFiles: settings.COMET_ATTACHMENT_MAX_FILES,
    maxTotalBytes: settings.COMET_ATTACHMENT_MAX_TOTAL_BYTES,
  });
}

/** How often a running serve or mcp removes expired uploads (more often when they live less). */
export function sweepIntervalMs(settings: Pick<Settings, 'COMET_ATTACHMENT_TTL_MS'>): number {
  return Math.min(60_000, settings.COMET_ATTACHMENT_TTL_MS);
}

/** `comet-relay mcp`: envelopes point at a loopback listener opened the first time one is asked for. */
export function onDemandAttachments(options: LocalAttachmentsOptions): { attachments: Attachments; close(): Promise<void> } {
  const store = attachmentStore(options);
  const stopSweeping = store.sweepEvery(sweepIntervalMs(options.settings));
  let listener: ReturnType<typeof startAttachmentListener> | undefined;
  const base = async () => {
    listener ??= startAttachmentListener(store);
    return (await listener).base;
  };
  return {
    attachments: new Attachments({ store, base }),
    close: async () => {
      stopSweeping();
      if (listener) await (await listener).close();
    },
  };
}
