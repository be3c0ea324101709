import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findChromium, NoChromiumError } from '../support/chromium';

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

describe('no Chromium anywhere', () => {
  it('is a NoChromiumError (what npm run demo offers to fix) that names every way to get one', () => {
    delete process.env.CHROMIUM_PATH;
    const nowhere = path.join(os.tmpdir(), 'no-such-chromium');
    expect(() => findChromium([`${nowhere}/a`, undefined, `${nowhere}/b`])).toThrow(NoChromiumError);
    expect(() => findChromium([])).toThrow(
      /No Chromium found\..*sudo apt-get install -y chromium.*npx playwright install chromium.*npm run demo -- --install-browser.*CHROMIUM_PATH.*Branded Chrome 137\+ ignores --load-extension/s,
    );
  });

  it('takes the first candidate that exists', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-chromium-'));
    try {
      delete process.env.CHROMIUM_PATH;
      fs.writeFileSync(path.join(dir, 'b'), '');
      expect(findChromium([path.join(dir, 'a'), undefined, path.join(dir, 'b')])).toBe(path.join(dir, 'b'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
