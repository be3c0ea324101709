/**
 * Draws the extension's icons into `public/` (run once by hand: `npm run icons`; the PNGs are
 * committed, and tests/unit/icons.test.ts checks they are still exactly what this draws).
 *
 *   public/icon/{16,32,48,128}.png          the extension's icon (WXT lists these in the manifest)
 *   public/action/{state}-{16,32}.png        the toolbar icon per connection state (lib/worker/link/action-state.ts)
 *
 * A teal tile with a white comet; the toolbar variants add a status dot. Drawn from shapes with
 * 4×4 supersampling and written by the minimal PNG encoder of ./png.ts: a few dozen lines instead
 * of a native image library for five small pictures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodePng } from './png';

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
