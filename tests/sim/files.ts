/**
 * Files of the simulated perplexity.ai: the bytes of the files tasks produce (served under
 * /_sim/assets/…, with a signed-looking expiry like a CDN URL), and the files the composer's file
 * input uploads (POST /_sim/api/upload), recorded so tests can check what the page received.
 */
import { createHash, randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PNG_SIGNATURE, pngChunk } from '../support/png';
import type { AssetSpec, TurnAttachment } from './tasks/task-types';

/** How long a download URL in the thread JSON stays valid. */
export const ASSET_URL_TTL_S = 3600;

function pdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A small solid-colour RGB PNG. */
function png(size: number, rgb: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const CONTENT: Record<AssetSpec['content'], () => Buffer> = {
  'pdf-report': () => pdf('Top stories report (simulated)'),
  'png-chart': () => png(8, [40, 120, 200]),
  'png-chart-v2': () => png(16, [40, 160, 90]),
};

export function assetBytes(asset: AssetSpec): Buffer {
  return CONTENT[asset.content]();
}

/** Files the page uploaded through the composer, kept until the site is dropped. */
export class Uploads {
  private readonly files = new Map<string, TurnAttachment>();

  /** Body: `{ filename, mimeType, data }` with data in base64 (what the page's file input read). */
  receive(body: string | undefined): { status: number; value: unknown } {
    let req: { filename?: unknown; mimeType?: unknown; data?: unknown };
    try {
      req = JSON.parse(body ?? '') as typeof req;
    } catch {
      return { status: 400, value: { error: 'body must be JSON' } };
    }
    if (typeof req.filename !== 'string' || !req.filename || typeof req.data !== 'string') {
      return { status: 400, value: { error: 'upload needs {filename, mimeType, data (base64)}' } };
    }
    const bytes = Buffer.from(req.data, 'base64');
    const file: TurnAttachment = {
      id: randomUUID(),
      filename: req.filename,
      mimeType: typeof req.mimeType === 'string' && req.mimeType ? req.mimeType : 'application/octet-stream',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    this.files.set(file.id, file);
    return { status: 200, value: { file } };
  }

  take(ids: unknown): TurnAttachment[] {
    if (!Array.isArray(ids)) return [];
    return ids.map((id) => (typeof id === 'string' ? this.files.get(id) : undefined)).filter((f): f is TurnAttachment => f !== undefined);
  }
}
