import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { EXTENSION_DIR } from '../support/harness';

/** (d) Size of a built extension file, raw and gzipped at level 9. */
export function gzipSize(relative: string): { raw: number; gzip: number } {
  const bytes = fs.readFileSync(path.join(EXTENSION_DIR, relative));
  return { raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
}
