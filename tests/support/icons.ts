/**
 * Draws the extension's icons into `public/` (run once by hand: `npm run icons`; the PNGs are
 * committed, and tests/unit/icons.test.ts checks they are still exactly what this draws).
 *
 *   public/icon/{16,32,48,128}.png          the extension's icon (WXT lists these in the manifest)
 *   public/action/{state}-{16,32}.png        the toolbar icon per connection state (lib/worker/link/action-state.ts)
 *
 * A teal tile with a white comet; the toolbar variants add a status dot. Drawn from shapes with
 * 4×4 supersampling and written by a minimal PNG encoder on node:zlib: a few dozen lines instead
 * of a native image library for five small pictures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

export const ICON_SIZES = [16, 32, 48, 128] as const;
export const ACTION_SIZES = [16, 32] as const;
export const DOT_COLORS = { connected: '#1E9E4A', connecting: '#E8A317', disconnected: '#D93025' } as const;
export type DotState = keyof typeof DOT_COLORS;

type Rgba = [number, number, number, number];

function hex(color: string, alpha = 1): Rgba {
  const n = Number.parseInt(color.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, alpha];
}

/** A shape: given a point in unit coordinates (0..1), is it inside? */
type Shape = (x: number, y: number) => boolean;

const circle =
  (cx: number, cy: number, r: number): Shape =>
  (x, y) =>
    (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

const roundedSquare =
  (inset: number, radius: number): Shape =>
  (x, y) => {
    const lo = inset + radius;
    const hi = 1 - inset - radius;
    const dx = Math.max(lo - x, 0, x - hi);
    const dy = Math.max(lo - y, 0, y - hi);
    return x >= inset && x <= 1 - inset && y >= inset && y <= 1 - inset && dx * dx + dy * dy <= radius * radius;
  };

/** A stroke from (ax, ay) to (bx, by) whose half-width grows from ra to rb: a comet's tail. */
const taper =
  (ax: number, ay: number, ra: number, bx: number, by: number, rb: number): Shape =>
  (x, y) => {
    const vx = bx - ax;
    const vy = by - ay;
    const t = Math.min(1, Math.max(0, ((x - ax) * vx + (y - ay) * vy) / (vx * vx + vy * vy)));
    const r = ra + (rb - ra) * t;
    return (x - (ax + t * vx)) ** 2 + (y - (ay + t * vy)) ** 2 <= r * r;
  };

interface Layer {
  shape: Shape;
  color: Rgba;
}

function layers(state?: DotState): Layer[] {
  const white = hex('#FFFFFF');
  const out: Layer[] = [
    { shape: roundedSquare(0.03, 0.2), color: hex('#1B7F8C') },
    { shape: taper(0.16, 0.86, 0.025, 0.6, 0.42, 0.13), color: hex('#FFFFFF', 0.45) },
    { shape: taper(0.3, 0.88, 0.015, 0.62, 0.5, 0.07), color: hex('#FFFFFF', 0.3) },
    { shape: circle(0.62, 0.38, 0.17), color: white },
  ];
  if (state) {
    out.push({ shape: circle(0.75, 0.75, 0.24), color: white }, { shape: circle(0.75, 0.75, 0.18), color: hex(DOT_COLORS[state]) });
  }
  return out;
}

/** Raw RGBA pixels (row-major, straight alpha) of one icon. */
export function drawIcon(size: number, state?: DotState): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const stack = layers(state);
  const samples = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      // Premultiplied accumulation over the subsamples, each composited back to front.
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size;
          const y = (py + (sy + 0.5) / samples) / size;
          let cr = 0;
          let cg = 0;
          let cb = 0;
          let ca = 0;
          for (const { shape, color } of stack) {
            if (!shape(x, y)) continue;
            const alpha = color[3];
            cr = color[0] * alpha + cr * (1 - alpha);
            cg = color[1] * alpha + cg * (1 - alpha);
            cb = color[2] * alpha + cb * (1 - alpha);
            ca = alpha + ca * (1 - alpha);
          }
          r += cr;
          g += cg;
          b += cb;
          a += ca;
        }
      }
      const n = samples * samples;
      const offset = (py * size + px) * 4;
      const alpha = a / n;
      pixels[offset] = alpha ? Math.round(r / n / alpha) : 0;
      pixels[offset + 1] = alpha ? Math.round(g / n / alpha) : 0;
      pixels[offset + 2] = alpha ? Math.round(b / n / alpha) : 0;
      pixels[offset + 3] = Math.round(alpha * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An 8-bit RGBA PNG of a square image. */
export function encodePng(size: number, rgba: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // depth 8, colour type RGBA, deflate, no filter method, no interlace
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Reads back an 8-bit RGBA, non-interlaced PNG whose rows all use filter 0 (what encodePng writes). */
export function decodePng(png: Buffer): { width: number; height: number; rgba: Buffer } {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[9] !== 6 || data[12] !== 0) throw new Error('only 8-bit RGBA non-interlaced PNGs are read here');
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const rows = zlib.inflateSync(Buffer.concat(idat));
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const start = y * (width * 4 + 1);
    if (rows[start] !== 0) throw new Error(`row ${y} uses PNG filter ${rows[start]}; only filter 0 is read here`);
    rows.copy(rgba, y * width * 4, start + 1, start + 1 + width * 4);
  }
  return { width, height, rgba };
}

/** Every icon file under public/, relative to it, with the pixels it must hold. */
export function iconFiles(): { file: string; size: number; rgba: () => Buffer }[] {
  return [
    ...ICON_SIZES.map((size) => ({ file: `icon/${size}.png`, size, rgba: () => drawIcon(size) })),
    ...(Object.keys(DOT_COLORS) as DotState[]).flatMap((state) =>
      ACTION_SIZES.map((size) => ({ file: `action/${state}-${size}.png`, size, rgba: () => drawIcon(size, state) })),
    ),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const publicDir = path.resolve(import.meta.dirname, '../../public');
  for (const { file, size, rgba } of iconFiles()) {
    const target = path.join(publicDir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, encodePng(size, rgba()));
    console.log(`wrote public/${file}`);
  }
}
