import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Door } from '../../protocol/doors';
import { RelayError } from '../../protocol/errors';
import type { AttachmentPayload } from '../../protocol/threads/threads';
import { ATTACHMENT_FILES, ATTACHMENT_FOLDER, ATTACHMENT_MARKER, attachmentsDir } from '../../relay/paths';

/**
 * Files an MCP client uploads for create_attachment_upload, kept under COMET_RELAY_HOME/attachments:
 * one folder per envelope, named by a random uuid, holding `meta.json` (which marks the folder as
 * ours), `claimed` (the one-time token was used), and the bytes in `data`. The client's filename
 * is only ever data in meta.json, never part of a path. Cleanup removes only expired folders whose
 * meta.json says we made them, and only the files we write there; an upload still arriving is
 * never removed under its writer.
 */


const Meta = z.object({
  kind: z.literal(ATTACHMENT_MARKER),
  id: z.string().regex(ATTACHMENT_FOLDER),
  filename: z.string(),
  mimeType: z.string(),
  declaredBytes: z.number().int().min(0),
  tokenSha256: z.string().length(64),
  createdAt: z.number(),
  /** The envelope's deadline; once uploaded, when the file goes. */
  expiresAt: z.number(),
  uploadedAt: z.number().optional(),
  sizeBytes: z.number().int().min(0).optional(),
  /** The door whose session made the envelope (absent: loopback); only that door reads or attaches the file. */
  door: z.enum(['loopback', 'public']).optional(),
});
type Meta = z.infer<typeof Meta>;
/** The door an upload belongs to: envelopes made before doors were recorded are loopback's. */
const doorOf = (meta: Meta): Door => meta.door ?? 'loopback';

export interface EnvelopeRequest {
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

/** What create_attachment_upload returns: the seed's three fields, plus when it expires and the limit. */
export interface Envelope {
  attachment_url: string;
  upload_url: string;
  upload_fields: Record<string, string>;
  expires_at: string;
  max_bytes: number;
}

export interface StoreOptions {
  home: string;
  maxBytes: number;
  ttlMs: number;
  /** Most envelopes alive at once (waiting for a file, arriving, or stored). */
  maxFiles?: number;
  /** Most bytes the live envelopes may hold together, counted at what each allows. */
  maxTotalBytes?: number;
  now?: () => number;
}

/** An upload whose token was just claimed: write to `partialPath`, then commit or abort. */
export interface ClaimedUpload {
  meta: Meta;
  partialPath: string;
  commit(sizeBytes: number): void;
  abort(): void;
}

/** An uploaded file found for an attachment_url. */
export interface StoredUpload {
  meta: Meta;
  path: string;
  sizeBytes: number;
}

/** Why an upload was refused, with the HTTP status that says it. */
export class UploadRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Checks a filename before it is accepted into an envelope; returns what is wrong, or undefined. */
export function filenameProblem(filename: string): string | undefined {
  if (filename.length === 0 || filename.length > 255) return 'must be 1 to 255 characters';
  if (filename === '.' || filename === '..') return 'must be a file name, not "." or ".."';
  if (/[/\\\u0000-\u001f\u007f]/.test(filename)) return 'must not contain a path separator or control characters (pass only the name, e.g. report.pdf)';
  if (/[<>:"|?*]/.test(filename)) return 'must not contain any of < > : " | ? *';
  if (filename.trim() !== filename) return 'must not start or end with spaces';
  // A lone surrogate is no character: no URL or file system takes it (review 10, crash F4).
  if (/\p{Cs}/u.test(filename)) return 'must be well-formed Unicode text (it holds half of a surrogate pair)';
  return undefined;
}

export function mimeTypeProblem(mimeType: string): string | undefined {
  if (!/^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i.test(mimeType)) {
    return 'must be a content type such as application/pdf or image/png';
  }
  return undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

export class AttachmentStore {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly ttlMs: number;
  private readonly maxFiles: number;
  private readonly maxTotalBytes: number;
  private readonly now: () => number;

  constructor(options: StoreOptions) {
    this.dir = attachmentsDir(options.home);
    this.maxBytes = options.maxBytes;
    this.ttlMs = options.ttlMs;
    this.maxFiles = options.maxFiles ?? Number.POSITIVE_INFINITY;
    this.maxTotalBytes = options.maxTotalBytes ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? Date.now;
  }

  /**
   * Makes an envelope: a folder with meta.json and a fresh one-time token. `base` has no trailing
   * slash. Refused, naming the setting, when the live envelopes are at COMET_ATTACHMENT_MAX_FILES
   * or would hold more than COMET_ATTACHMENT_MAX_TOTAL_BYTES. Each process counts the folder as it
   * finds it: processes creating at the same instant may each pass, one envelope over apiece.
   */
  create(request: EnvelopeRequest, base: string, door: Door = 'loopback'): Envelope {
    this.checkRoomFor(request, door);
    const id = randomUUID();
    const token = randomBytes(32).toString('base64url');
    const createdAt = this.now();
    const meta: Meta = {
      kind: ATTACHMENT_MARKER,
      id,
      filename: request.filename,
      mimeType: request.mimeType,
      declaredBytes: request.sizeBytes,
      tokenSha256: digest(token),
      createdAt,
      expiresAt: createdAt + this.ttlMs,
      ...(door === 'loopback' ? {} : { door }),
    };
    // Made before anything is written: a name it throws on leaves no envelope behind.
    const attachmentUrl = `${base}/attachments/${id}/${encodeURIComponent(request.filename)}`;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const folder = path.join(this.dir, id);
    fs.mkdirSync(folder, { mode: 0o700 });
    try {
      this.writeMeta(meta);
    } catch (error) {
      // A folder with no meta.json is named by nothing: it goes now, with its temp file (review 8, long-run #8).
      fs.rmSync(folder, { recursive: true, force: true });
      throw error;
    }
    return {
      attachment_url: attachmentUrl,
      upload_url: `${base}/attachments/upload`,
      upload_fields: { key: id, token },
      expires_at: new Date(meta.expiresAt).toISOString(),
      max_bytes: Math.min(request.sizeBytes, this.maxBytes),
    };
  }

  /** Checks key and token and uses the token up (once, across processes), or refuses. */
  claim(key: string | undefined, token: string | undefined): ClaimedUpload {
    if (!key || !token) throw new UploadRefused(400, 'Send the "key" and "token" fields of upload_fields before the file part.');
    const meta = this.meta(key);
    if (!meta || !timingSafeEqual(Buffer.from(digest(token)), Buffer.from(meta.tokenSha256))) {
      throw new UploadRefused(403, 'Unknown key or wrong token: use the upload_fields that create_attachment_upload returned.');
    }
    if (meta.uploadedAt === undefined && meta.expiresAt < this.now()) {
      throw new UploadRefused(410, 'This upload envelope has expired: request a new one with create_attachment_upload.');
    }
    const folder = path.join(this.dir, meta.id);
    try {
      fs.writeFileSync(path.join(folder, 'claimed'), String(this.now()), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new UploadRefused(409, 'This upload envelope was already used: request a new one with create_attachment_upload.');
      }
      throw error;
    }
    const partialPath = path.join(folder, 'data.partial');
    return {
      meta,
      partialPath,
      commit: (sizeBytes) => {
        try {
          fs.renameSync(partialPath, path.join(folder, 'data'));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          throw new UploadRefused(410, 'The upload envelope was removed while the file was arriving (cleaned up or purged): request a new one with create_attachment_upload and send the file again.');
        }
        const uploadedAt = this.now();
        this.writeMeta({ ...meta, uploadedAt, sizeBytes, expiresAt: uploadedAt + this.ttlMs });
      },
      abort: () => fs.rmSync(partialPath, { force: true }),
    };
  }

  /**
   * The stored file behind an id, when it is uploaded, not expired and `door`'s (review 2026-12-05, http #2: one door
   * never reads what the other's sessions uploaded).
   */
  file(id: string, door: Door = 'loopback'): { meta: Meta; path: string } | undefined {
    const meta = this.meta(id);
    if (!meta || meta.uploadedAt === undefined || meta.expiresAt < this.now() || doorOf(meta) !== door) return undefined;
    return { meta, path: path.join(this.dir, meta.id, 'data') };
  }

  /**
   * The upload behind an attachment_url, checked but not read yet. `accepted` lists the URL bases
   * (origin + path) the envelope may have been issued under; the url must be exactly
   * `{base}/attachments/{id}/{filename}`.
   */
  uploadFor(url: string, accepted: (candidate: URL) => boolean, door: Door = 'loopback'): StoredUpload {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RelayError('INVALID_PARAMS', 'is not a URL: pass an attachment_url from create_attachment_upload');
    }
    const match = /^(.*)\/attachments\/([0-9a-f-]{36})\/([^/]+)$/.exec(parsed.pathname);
    if (!match || parsed.search || parsed.hash || parsed.username || parsed.password || !accepted(parsed)) {
      throw new RelayError('INVALID_PARAMS', 'is not an attachment_url this comet-relay issued: upload the file with create_attachment_upload first');
    }
    const [, , id, name] = match as unknown as [string, string, string, string];
    const meta = this.meta(id);
    if (!meta || encodeURIComponent(meta.filename) !== name || doorOf(meta) !== door) {
      throw new RelayError('INVALID_PARAMS', 'names no upload here (wrong id or file name): pass the attachment_url exactly as create_attachment_upload returned it');
    }
    const stored = this.file(id, door);
    if (!stored) {
      const why = meta.uploadedAt === undefined ? 'was never uploaded: POST the file to upload_url with upload_fields first' : 'has expired: upload it again';
      throw new RelayError('INVALID_PARAMS', why);
    }
    return { ...stored, sizeBytes: meta.sizeBytes ?? 0 };
  }

  /** An upload's bytes for the page. */
  payloadOf(upload: StoredUpload): AttachmentPayload {
    return { filename: upload.meta.filename, mimeType: upload.meta.mimeType, data: fs.readFileSync(upload.path).toString('base64') };
  }

  /**
   * Removes expired uploads: only folders named like ours whose meta.json is ours, only our files.
   * An upload claimed before its envelope expired may still be arriving: its folder is kept for one
   * more COMET_ATTACHMENT_TTL_MS past the expiry (a writer that died leaves it for that long). Any
   * one folder that cannot be read or removed (another process got there first) is skipped.
   */
  sweep(): void {
    const now = this.now();
    const names = this.folderNames();
    for (const { name, meta } of this.entries(names)) {
      if (meta.expiresAt < now && !this.arriving(name, meta, now)) this.remove(name);
    }
    // An upload's folder that never got its meta.json (the process ended between making the folder and writing the
    // file): nothing names it, so it goes once it is a ttl old (review 8, long-run #8; fixes review 1).
    for (const name of names) if (this.unfinished(name, now)) this.remove(name);
  }

  /** The files of ours in an upload's folder, then the folder, which stays when anything else is in it. */
  private remove(name: string): void {
    const folder = path.join(this.dir, name);
    try {
      if (!fs.lstatSync(folder).isDirectory()) return;
    } catch {
      return; // removed meanwhile
    }
    for (const file of ATTACHMENT_FILES) {
      const target = path.join(folder, file);
      try {
        if (fs.lstatSync(target).isFile()) fs.unlinkSync(target);
      } catch {
        // not there
      }
    }
    try {
      fs.rmdirSync(folder);
    } catch {
      // something we did not write is in there: leave it
    }
  }

  /** An upload's folder, a ttl old, with no meta.json. */
  private unfinished(name: string, now: number): boolean {
    if (!ATTACHMENT_FOLDER.test(name)) return false;
    const folder = path.join(this.dir, name);
    try {
      const stat = fs.lstatSync(folder);
      return stat.isDirectory() && stat.mtimeMs <= now - this.ttlMs && !fs.existsSync(path.join(folder, 'meta.json'));
    } catch {
      return false; // gone meanwhile, or not ours to look into
    }
  }

  /**
   * Sweeps now and then every `intervalMs` until stopped, so expired files go without waiting for
   * the next attachment call. The timer never keeps the process alive.
   */
  sweepEvery(intervalMs: number): () => void {
    const sweep = () => {
      try {
        this.sweep();
      } catch {
        // the folder is unreadable now; the next round tries again
      }
    };
    sweep();
    const timer = setInterval(sweep, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Claimed, not yet committed, and within one ttl past its envelope's expiry: a writer may still be at work. */
  private arriving(name: string, meta: Meta, now: number): boolean {
    return meta.uploadedAt === undefined && now < meta.expiresAt + this.ttlMs && fs.existsSync(path.join(this.dir, name, 'claimed'));
  }

  /** What the uploads folder holds, by name (none when it cannot be read). */
  private folderNames(): string[] {
    try {
      return fs.readdirSync(this.dir);
    } catch {
      return [];
    }
  }

  /** Our envelopes in the folder, with their meta. */
  private entries(names = this.folderNames()): { name: string; meta: Meta }[] {
    return names.flatMap((name) => {
      const meta = ATTACHMENT_FOLDER.test(name) ? this.meta(name) : undefined;
      return meta ? [{ name, meta }] : [];
    });
  }

  /** Throws, naming the cap, when an envelope for `request` would pass COMET_ATTACHMENT_MAX_FILES or _MAX_TOTAL_BYTES. */
  checkRoomFor(request: EnvelopeRequest, door: Door = 'loopback'): void {
    this.sweep();
    this.checkRoom(Math.min(request.sizeBytes, this.maxBytes), door);
  }

  /**
   * Each door has the caps to itself, as it has its own sessions: what the public door keeps (the Agent API's calls
   * through a tunnel) never refuses the person's local clients an upload (review 10, door M2).
   */
  private checkRoom(bytes: number, door: Door): void {
    const now = this.now();
    const live = this.entries().filter(({ name, meta }) => (meta.door ?? 'loopback') === door && (meta.expiresAt >= now || this.arriving(name, meta, now)));
    const whose = door === 'public' ? ' through the public door' : '';
    if (live.length >= this.maxFiles) {
      throw new RelayError(
        'INVALID_PARAMS',
        `${live.length} uploads${whose} are already kept (COMET_ATTACHMENT_MAX_FILES is ${this.maxFiles}): wait until older ones expire (COMET_ATTACHMENT_TTL_MS), or raise the cap.`,
      );
    }
    const held = live.reduce((sum, { meta }) => sum + (meta.sizeBytes ?? Math.min(meta.declaredBytes, this.maxBytes)), 0);
    if (held + bytes > this.maxTotalBytes) {
      throw new RelayError(
        'INVALID_PARAMS',
        `size_bytes ${bytes} does not fit: the kept uploads${whose} hold ${held} of ${this.maxTotalBytes} bytes (COMET_ATTACHMENT_MAX_TOTAL_BYTES). Wait until older ones expire (COMET_ATTACHMENT_TTL_MS), or raise the cap.`,
      );
    }
  }

  private meta(id: string): Meta | undefined {
    if (!ATTACHMENT_FOLDER.test(id)) return undefined;
    try {
      const parsed = Meta.safeParse(JSON.parse(fs.readFileSync(path.join(this.dir, id, 'meta.json'), 'utf8')));
      return parsed.success && parsed.data.id === id ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private writeMeta(meta: Meta): void {
    const target = path.join(this.dir, meta.id, 'meta.json');
    // One writer per folder at a time: create() makes it, commit() runs once after an exclusive claim.
    const temp = `${target}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(meta), { mode: 0o600 });
    fs.renameSync(temp, target);
  }
}
