import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureToken, ensureTokenFile, readToken, rotateToken } from '../../lib/install/token';

const temps: string[] = [];
const tempHome = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-token-'));
  temps.push(dir);
  return path.join(dir, 'state');
};
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe('token', () => {
  it('creates 32 random bytes base64url, file 0600 in a 0700 folder', () => {
    const home = tempHome();
    const token = ensureToken(home);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(fs.statSync(path.join(home, 'token')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    expect(readToken(home)).toBe(token);
  });

  it('returns the existing token and tightens a readable file', () => {
    const home = tempHome();
    const token = ensureToken(home);
    fs.chmodSync(path.join(home, 'token'), 0o644);
    expect(ensureTokenFile(home)).toEqual({ token, created: false, path: path.join(home, 'token') });
    expect(fs.statSync(path.join(home, 'token')).mode & 0o777).toBe(0o600);
  });

  it('replaces an empty or corrupt file; readToken says undefined for it', () => {
    const home = tempHome();
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(home, 'token'), 'short\n');
    expect(readToken(home)).toBeUndefined();
    const token = ensureToken(home);
    expect(token).not.toBe('short');
    expect(readToken(home)).toBe(token);
  });

  it('keeps the public token apart: its own 0600 file, rotated alone', () => {
    const home = tempHome();
    const local = ensureToken(home);
    const publicToken = ensureToken(home, { kind: 'public' });
    expect(publicToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(publicToken).not.toBe(local);
    expect(fs.readFileSync(path.join(home, 'public-token'), 'utf8')).toBe(publicToken);
    expect(fs.statSync(path.join(home, 'public-token')).mode & 0o777).toBe(0o600);
    const rotated = rotateToken(home, { kind: 'public' });
    expect(rotated).not.toBe(publicToken);
    expect(readToken(home, { kind: 'public' })).toBe(rotated);
    expect(readToken(home)).toBe(local);
  });

  it('rotates', () => {
    const home = tempHome();
    const first = ensureToken(home);
    const second = rotateToken(home);
    expect(second).not.toBe(first);
    expect(readToken(home)).toBe(second);
  });

  it('never logs the token', () => {
    const spies = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'info')];
    const home = tempHome();
    ensureToken(home);
    readToken(home);
    rotateToken(home);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('a missing home is reported with the file it could not write', () => {
    const home = path.join(tempHome(), 'file');
    fs.mkdirSync(path.dirname(home), { recursive: true });
    fs.writeFileSync(home, 'a file, not a folder');
    expect(() => ensureToken(home)).toThrow(`Could not create the HTTP token file ${path.join(home, 'token')}`);
  });
});
