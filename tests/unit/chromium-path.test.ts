import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findChromium } from '../support/chromium';

const saved = process.env.CHROMIUM_PATH;
afterEach(() => {
  if (saved === undefined) delete process.env.CHROMIUM_PATH;
  else process.env.CHROMIUM_PATH = saved;
});

describe('CHROMIUM_PATH', () => {
  it('naming no file is an error that says so, not a quiet fall-back to another browser', () => {
    process.env.CHROMIUM_PATH = path.join(os.tmpdir(), 'no-such-chromium', 'chrome');
    expect(() => findChromium()).toThrow(/CHROMIUM_PATH is set to ".*no-such-chromium.*", which is not a file\. Point it at/);
    process.env.CHROMIUM_PATH = os.tmpdir(); // a folder, not a binary
    expect(() => findChromium()).toThrow(/which is not a file/);
  });

  it('naming a file is used as given', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cr-chromium-')), 'chrome');
    try {
      fs.writeFileSync(file, '');
      process.env.CHROMIUM_PATH = file;
      expect(findChromium()).toBe(file);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
