import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BROWSERS,
  browserExecutableCandidates,
  findBrowserExecutable,
  isBrowserInstalled,
  parseBrowsers,
  registryKey,
  userDataDirs,
} from '../../lib/install/browsers';

const temps: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-browsers-'));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('browser locations', () => {
  it('Linux: ~/.config/<browser>, honouring an absolute XDG_CONFIG_HOME', () => {
    const sys = { platform: 'linux' as const, homedir: '/home/u', env: {} };
    expect(userDataDirs('chrome', sys)).toEqual(['/home/u/.config/google-chrome']);
    expect(userDataDirs('chromium', sys)).toEqual(['/home/u/.config/chromium']);
    expect(userDataDirs('brave', sys)).toEqual(['/home/u/.config/BraveSoftware/Brave-Browser']);
    expect(userDataDirs('edge', sys)).toEqual(['/home/u/.config/microsoft-edge']);
    expect(userDataDirs('comet', sys)).toEqual(['/home/u/.config/comet']);
    expect(userDataDirs('chromium', { ...sys, env: { XDG_CONFIG_HOME: '/xdg' } })).toEqual(['/xdg/chromium']);
    // A relative XDG_CONFIG_HOME is invalid per the spec and ignored, like Chromium does.
    expect(userDataDirs('chromium', { ...sys, env: { XDG_CONFIG_HOME: 'rel' } })).toEqual(['/home/u/.config/chromium']);
  });

  it('macOS: Application Support, with two candidates for Comet', () => {
    const sys = { platform: 'darwin' as const, homedir: '/Users/u', env: {} };
    expect(userDataDirs('chrome', sys)).toEqual(['/Users/u/Library/Application Support/Google/Chrome']);
    expect(userDataDirs('edge', sys)).toEqual(['/Users/u/Library/Application Support/Microsoft Edge']);
    expect(userDataDirs('comet', sys)).toEqual(['/Users/u/Library/Application Support/Comet', '/Users/u/Library/Application Support/Perplexity/Comet']);
  });

  it('Windows: HKCU registry keys per browser', () => {
    expect(registryKey('chrome')).toBe('HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.comet_relay.host');
    expect(registryKey('chromium')).toBe('HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.comet_relay.host');
    expect(registryKey('brave')).toBe('HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\com.comet_relay.host');
    expect(registryKey('edge')).toBe('HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.comet_relay.host');
    expect(registryKey('comet')).toBe('HKCU\\Software\\Perplexity\\Comet\\NativeMessagingHosts\\com.comet_relay.host');
    const sys = { platform: 'win32' as const, homedir: 'C:\\Users\\u', env: { LOCALAPPDATA: 'D:\\Local' } };
    expect(userDataDirs('comet', sys)).toEqual(['D:\\Local\\Perplexity\\Comet\\User Data']);
    expect(userDataDirs('chrome', { ...sys, env: {} })).toEqual(['C:\\Users\\u\\AppData\\Local\\Google\\Chrome\\User Data']);
  });

  it('executables: Comet on Windows and macOS, COMET_PATH first', () => {
    const win = browserExecutableCandidates('comet', { platform: 'win32', homedir: 'C:\\Users\\u', env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', ProgramFiles: 'C:\\Program Files' } });
    expect(win[0]).toBe('C:\\Users\\u\\AppData\\Local\\Perplexity\\Comet\\Application\\comet.exe');
    expect(win).toContain('C:\\Program Files\\Perplexity\\Comet\\Application\\comet.exe');
    const mac = browserExecutableCandidates('comet', { platform: 'darwin', homedir: '/Users/u', env: { COMET_PATH: '/opt/MyComet' } });
    expect(mac.slice(0, 2)).toEqual(['/opt/MyComet', '/Applications/Comet.app/Contents/MacOS/Comet']);
  });

  it('finds an executable on PATH and tells installed browsers by their user data folder', () => {
    const home = tempDir();
    const bin = path.join(home, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'microsoft-edge'), '#!/bin/sh\n', { mode: 0o755 });
    const sys = { platform: 'linux' as const, homedir: home, env: { PATH: `${bin}:/nonexistent` } };
    expect(findBrowserExecutable('edge', sys)).toBe(path.join(bin, 'microsoft-edge'));
    expect(isBrowserInstalled('brave', sys)).toBe(false);
    fs.mkdirSync(path.join(home, '.config', 'BraveSoftware', 'Brave-Browser'), { recursive: true });
    expect(isBrowserInstalled('brave', sys)).toBe(true);
  });

  it('parses --browser values and names the valid ones on a typo', () => {
    expect(parseBrowsers('all')).toBe('all');
    expect(parseBrowsers('Chrome, brave,chrome')).toEqual(['chrome', 'brave']);
    expect(() => parseBrowsers('firefox')).toThrow(`Unknown browser "firefox": use one of ${BROWSERS.join(', ')}, or all.`);
  });
});
