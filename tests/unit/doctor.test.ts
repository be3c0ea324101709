import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DoctorReport, doctor, formatDoctor } from '../../lib/install/doctor';
import { formatPageReport } from '../../lib/install/page-report';
import { install } from '../../lib/install/install';
import { RelayError } from '../../lib/protocol/errors';
import { EXTENSION_ORIGIN } from '../../lib/protocol/identity';
import type { BrowserStatus } from '../../lib/protocol/methods';
import type { PageDiagnosis } from '../../lib/protocol/page/page-diagnostics';
import type { HostRecord } from '../../lib/relay/discovery';
import { pageAccessWords } from '../../lib/protocol/page-access';
import { VERSION } from '../../lib/relay/version';
import { linuxInstallHome } from '../support/install-home';
import { windowsMachine } from './install-memfs';
import { cliCommand } from '../../lib/relay/invocation';

/** An install home where Chromium has a profile. */
function setup() {
  const home = linuxInstallHome('doctor');
  fs.mkdirSync(path.join(home.homedir, '.config', 'chromium'), { recursive: true });
  return home;
}

const host = (over: Partial<HostRecord> = {}): HostRecord => ({
  profileId: 'profile-0001',
  profileLabel: 'Default',
  browser: { name: 'Chromium', version: '156.0' },
  extensionVersion: VERSION,
  hostVersion: VERSION,
  socketPath: '/tmp/x.sock',
  pid: 4242,
  startedAt: '2026-01-01T00:00:00Z',
  connectedAt: '2026-01-01T00:00:01Z',
  ...over,
});

const status = (over: Partial<BrowserStatus> = {}): BrowserStatus => ({
  profile: { id: 'profile-0001', label: 'Default' },
  browser: { name: 'Chromium', version: '156.0', userAgent: 'x' },
  extensionVersion: VERSION,
  perplexityTab: { tabId: '7', url: 'https://www.perplexity.ai/', title: 'Perplexity', selectorSet: 'generation-b' },
  tabCount: 3,
  ...over,
});

const check = (report: DoctorReport, name: string) => {
  const found = report.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check named ${name}: ${report.checks.map((c) => c.name).join(', ')}`);
  return found;
};

describe('doctor', () => {
  it('all green: every link checked in order, exit code 0', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status() });
    expect(report.checks.map((c) => c.name)).toEqual([
      'node',
      'CLI built',
      'extension folder',
      'manifest (chrome)',
      'manifest (chromium)',
      'manifest (brave)',
      'manifest (edge)',
      'manifest (comet)',
      'HTTP token',
      'selector sets',
      'thread readers',
      'host running',
      'extension connected',
      'Perplexity tab',
      'screenshots',
    ]);
    expect(report.exitCode).toBe(0);
    expect(check(report, 'manifest (chromium)')).toMatchObject({ ok: true });
    // Chrome is not installed here: skipped, not failed.
    expect(check(report, 'manifest (chrome)')).toMatchObject({ ok: true, skipped: true });
    expect(check(report, 'Perplexity tab').detail).toContain('page layout generation-b (built-in)');
    expect(check(report, 'selector sets')).toMatchObject({ ok: true, detail: expect.stringMatching(/^built-in only \(none added in .*selectors\)$/) });
    const text = formatDoctor(report);
    expect(text).toContain('✔ manifest (chromium) — ~/.config/chromium/NativeMessagingHosts/com.comet_relay.host.json');
    expect(text).toContain('- manifest (chrome) — skipped: Google Chrome not found');
    expect(text.split('\n').at(-1)).toBe('Everything checked is working.');
  });

  it('an installed browser that is not registered is skipped when another one works, failed when none does', async () => {
    const s = setup();
    fs.mkdirSync(path.join(s.homedir, '.config', 'google-chrome'), { recursive: true });
    let report = await doctor({ ...s, listHosts: () => [] });
    expect(check(report, 'manifest (chrome)')).toMatchObject({ ok: false, fix: `run: ${cliCommand('install --browser chrome')}` });
    expect(check(report, 'manifest (chromium)').detail).toContain('cannot start the host ("Specified native messaging host not found")');

    await install({ ...s, browsers: ['chromium'] });
    report = await doctor({ ...s, listHosts: () => [] });
    expect(check(report, 'manifest (chrome)')).toMatchObject({ ok: true, skipped: true });
    expect(check(report, 'manifest (chrome)').detail).toContain(`to use comet-relay there, run: ${cliCommand('install --browser chrome')}`);
  });

  it('broken setup: names the wrong extension id, the non-executable launcher and the vanished node', async () => {
    const s = setup();
    const installed = await install({ ...s, browsers: ['chromium'] });
    const manifestPath = installed.targets[0]?.manifestPath as string;
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    manifest.allowed_origins = ['chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/'];
    fs.writeFileSync(manifestPath, JSON.stringify(manifest));
    fs.chmodSync(installed.launcherPath, 0o644);
    const launcher = fs.readFileSync(installed.launcherPath, 'utf8').replace(`CR_NODE='${process.execPath}'`, "CR_NODE='/gone/node'");
    fs.writeFileSync(installed.launcherPath, launcher);

    const report = await doctor({ ...s, listHosts: () => [] });
    const broken = check(report, 'manifest (chromium)');
    expect(broken.ok).toBe(false);
    expect(broken.detail).toContain(`manifest admits extension chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/ but the installed comet-relay extension is ${EXTENSION_ORIGIN}`);
    expect(broken.detail).toContain('comet-relay-host is not executable');
    expect(broken.detail).toContain('the launcher runs node at /gone/node, which does not exist');
    expect(broken.fix).toBe(`run: ${cliCommand('install --browser chromium')}`);
    expect(report.exitCode).toBe(1);

    const text = formatDoctor(report);
    expect(text).toContain('✘ manifest (chromium) — ~/.config/chromium/NativeMessagingHosts/com.comet_relay.host.json: the manifest admits');
    expect(text).toContain(`\n    fix: run: ${cliCommand('install --browser chromium')}`);
    expect(text).toContain('✘ host running — No comet-relay host is running');
    expect(text).toContain(`check the host log at ~/.local/state/comet-relay/logs/host.log`);
    expect(text.split('\n').at(-1)).toBe('2 problems found; start with "manifest (chromium)".');
  });

  it('flags a launcher that starts the host in another state folder than this shell uses', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'], home: path.join(s.homedir, 'elsewhere') });
    const report = await doctor({ ...s, listHosts: () => [] });
    expect(check(report, 'manifest (chromium)').detail).toContain('the launcher starts the host with state folder ~/elsewhere, but this shell uses ~/.local/state/comet-relay');
    const same = await doctor({ ...s, home: path.join(s.homedir, 'elsewhere'), listHosts: () => [] });
    expect(check(same, 'manifest (chromium)').ok).toBe(true);
  });

  it('old node, unbuilt CLI, open token file', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    fs.chmodSync(path.join(s.homedir, '.local', 'state', 'comet-relay', 'token'), 0o644);
    // A repository checkout (its sources are there) whose CLI was never built.
    const repo = path.join(s.homedir, 'checkout');
    fs.mkdirSync(path.join(repo, 'lib', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'lib', 'cli', 'main.ts'), '');
    const report = await doctor({ ...s, nodeVersion: '18.19.0', cliPath: path.join(repo, 'dist', 'cli.js'), listHosts: () => [] });
    expect(check(report, 'node')).toMatchObject({ ok: false, detail: expect.stringContaining('node 18.19.0 at') });
    expect(check(report, 'node').fix).toContain('install Node.js 20+');
    expect(check(report, 'CLI built')).toMatchObject({ ok: false, detail: expect.stringContaining('(repository build)'), fix: 'run: npm run build (in ~/checkout)' });
    expect(check(report, 'HTTP token')).toMatchObject({ ok: false, detail: expect.stringContaining('readable by others (mode 0644)') });
  });

  it('host running but the extension does not answer: reports the error message', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const report = await doctor({
      ...s,
      listHosts: () => [host()],
      queryStatus: async () => {
        throw new RelayError('EXTENSION_NOT_CONNECTED', 'The extension is not connected to the host.');
      },
    });
    expect(check(report, 'host running').ok).toBe(true);
    expect(check(report, 'extension connected')).toMatchObject({ ok: false, detail: 'asking the browser for its status failed: [EXTENSION_NOT_CONNECTED] The extension is not connected to the host.' });
    expect(check(report, 'Perplexity tab')).toMatchObject({ ok: true, skipped: true });
    expect(check(report, 'extension connected').fix).toContain("open the browser's extensions page (chrome://extensions)");
  });

  it('sends a Comet user to comet://extensions', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const report = await doctor({
      ...s,
      listHosts: () => [host({ browser: { name: 'Comet', version: '142.0' } })],
      queryStatus: async () => {
        throw new RelayError('EXTENSION_NOT_CONNECTED', 'The extension is not connected to the host.');
      },
    });
    expect(check(report, 'extension connected').fix).toContain("open the browser's extensions page (comet://extensions)");
  });

  it('times out a query that never answers', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const report = await doctor({ ...s, listHosts: () => [host()], queryStatus: () => new Promise(() => {}), statusTimeoutMs: 20 });
    expect(check(report, 'extension connected').detail).toContain('did not answer within');
  });

  it('a Perplexity tab the browser keeps comet-relay out of fails, in the extension’s words, and the exit is non-zero', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const access = pageAccessWords({ state: 'blocked-by-policy', settled: true, browserSaid: 'This page cannot be scripted due to an ExtensionsSettings policy.' }, { browserName: 'Chromium', tabId: 7 });
    const report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ perplexityTab: null, pageAccess: access }) });
    expect(check(report, 'Perplexity tab')).toMatchObject({ ok: false, detail: `[BROWSER_POLICY] ${access.message}`, fix: access.fix });
    expect(check(report, 'Perplexity tab').fix).toContain('`comet-relay unblock --browser chromium`');
    expect(report.exitCode).toBe(1);
  });

  it('says whether screenshots are allowed and, when not, how to allow them, without calling it a problem', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    let report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ tabAccess: false }) });
    expect(check(report, 'screenshots')).toMatchObject({ ok: true, off: true, detail: expect.stringContaining('comet_screenshot is refused, of the Perplexity tab too') });
    expect(check(report, 'screenshots').fix).toBe(
      'to allow them, open the comet-relay side panel and click “Let agents take screenshots and read other tabs” (under Control, or in its first-run card)',
    );
    expect(report.exitCode).toBe(0);
    const text = formatDoctor(report);
    expect(text).toContain('○ screenshots — not allowed');
    expect(text).toContain('\n    to allow them, open the comet-relay side panel');
    expect(text.split('\n').at(-1)).toBe('Everything checked is working.');

    report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ tabAccess: true }) });
    expect(check(report, 'screenshots')).toMatchObject({ ok: true, detail: expect.stringMatching(/^allowed: agents may take screenshots and read other tabs/) });
    expect(check(report, 'screenshots').off).toBeUndefined();
    // An extension from before the field: doctor cannot tell, and says how to allow it anyway.
    report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status() });
    expect(check(report, 'screenshots')).toMatchObject({ ok: true, skipped: true, detail: expect.stringContaining('click “Let agents take screenshots and read other tabs”') });
  });

  it('no Perplexity tab, an unrecognised page, and a stale host version', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    let report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ perplexityTab: null }) });
    expect(check(report, 'Perplexity tab')).toMatchObject({ ok: false, fix: expect.stringContaining('open https://www.perplexity.ai') });
    report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ perplexityTab: { tabId: '1', url: 'https://www.perplexity.ai/', title: 'P', selectorSet: null } }) });
    expect(check(report, 'Perplexity tab').detail).toContain('was not recognised');
    report = await doctor({ ...s, listHosts: () => [host({ hostVersion: '0.0.1' })], queryStatus: async () => status() });
    expect(check(report, 'host running')).toMatchObject({ ok: false, fix: expect.stringContaining('reload the comet-relay extension') });
    expect(check(report, 'host running').detail).toContain(`is version 0.0.1, but this comet-relay is ${VERSION}`);
  });

  it('a host whose code file was written anew since it started is stale, though its version is this one (review 8, skew F5)', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const file = path.join(s.homedir, 'clone', 'dist', 'host-command.js');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    const started = { file, mtimeMs: fs.statSync(file).mtimeMs };
    let report = await doctor({ ...s, listHosts: () => [host({ code: started })], queryStatus: async () => status() });
    expect(check(report, 'host running').ok).toBe(true);
    fs.utimesSync(file, new Date(), new Date(started.mtimeMs + 60_000));
    report = await doctor({ ...s, listHosts: () => [host({ code: started })], queryStatus: async () => status() });
    expect(check(report, 'host running')).toMatchObject({ ok: false, fix: expect.stringContaining('reload the comet-relay extension') });
    expect(check(report, 'host running').detail).toContain('The host for "Default" runs the code it started with; ~/clone/dist/host-command.js was written anew since');
    fs.rmSync(file);
    report = await doctor({ ...s, listHosts: () => [host({ code: started })], queryStatus: async () => status() });
    expect(check(report, 'host running').ok).toBe(false);
  });

  it('names the file a selector set came from, and a skipped selector set file is a problem with its fix', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const folder = (dir: string, skipped: { source: string; reason: string }[]) => () => ({
      dir: `${dir}/selectors`,
      packs: [{ source: `${dir}/selectors/selector-set.gen-b-2026-12.json`, kind: 'selector-set', name: 'gen-b-2026-12', pack: { kind: 'selector-set' } }],
      skipped,
    });
    const tab = { tabId: '1', url: 'https://www.perplexity.ai/', title: 'P', selectorSet: 'gen-b-2026-12', selectorSource: '/h/selectors/selector-set.gen-b-2026-12.json' };
    let report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ perplexityTab: tab }), readPacks: folder('/h', []) });
    expect(check(report, 'Perplexity tab').detail).toContain('page layout gen-b-2026-12 (from /h/selectors/selector-set.gen-b-2026-12.json)');
    expect(check(report, 'selector sets')).toMatchObject({ ok: true, detail: 'built-in, and added in /h/selectors: gen-b-2026-12 (selector-set.gen-b-2026-12.json)' });
    report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status(), readPacks: folder('/h', [{ source: '/h/selectors/bad.json', reason: 'set.turn: Too small' }]) });
    expect(check(report, 'selector sets')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('skipped 1 file in /h/selectors: bad.json: set.turn: Too small'),
      fix: expect.stringContaining(`\`${cliCommand('selectors add FILE')}\``),
    });
    expect(report.exitCode).toBe(1);
  });

  it('names the thread readers in use: built-in, or the file one was added from', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const json = '/h/selectors/thread-json-reader.thread-json-2027-01.json';
    const readPacks = () => ({
      dir: '/h/selectors',
      packs: [
        { source: '/h/selectors/selector-set.gen-b-2026-12.json', kind: 'selector-set', name: 'gen-b-2026-12', pack: { kind: 'selector-set' } },
        { source: json, kind: 'thread-json-reader', name: 'thread-json-2027-01', pack: { kind: 'thread-json-reader' } },
      ],
      skipped: [],
    });
    const report = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status(), readPacks });
    expect(check(report, 'thread readers')).toMatchObject({
      ok: true,
      detail: `thread page reader thread-page-2026-12 (built-in); thread JSON reader thread-json-2027-01 (from ${json}); account JSON reader account-json-2026-12 (built-in); library JSON reader library-json-2026-12 (built-in); ask stream reader ask-stream-2026-08 (built-in)`,
    });
    // The selector sets line lists only selector sets.
    expect(check(report, 'selector sets').detail).toBe('built-in, and added in /h/selectors: gen-b-2026-12 (selector-set.gen-b-2026-12.json)');
  });

  it('--user-data-dir checks only that profile', async () => {
    const s = setup();
    const profile = path.join(s.homedir, 'p');
    let report = await doctor({ ...s, userDataDir: profile, listHosts: () => [] });
    expect(report.checks.filter((c) => c.name.startsWith('manifest'))).toEqual([
      expect.objectContaining({ name: 'manifest (--user-data-dir)', ok: false, fix: `run: ${cliCommand(`install --user-data-dir ${profile}`)}` }),
    ]);
    await install({ ...s, userDataDir: profile });
    report = await doctor({ ...s, userDataDir: profile, listHosts: () => [] });
    expect(check(report, 'manifest (--user-data-dir)').ok).toBe(true);
  });

  it('--user-data-dir naming a file (the profile\'s Local State) says so, not an install that refuses it too (review 14c, F4)', async () => {
    const s = setup();
    const profile = path.join(s.homedir, 'p');
    fs.mkdirSync(profile, { recursive: true });
    const file = path.join(profile, 'Local State');
    fs.writeFileSync(file, '{}');
    expect((await install({ ...s, userDataDir: file })).ok).toBe(false);
    const report = await doctor({ ...s, userDataDir: file, listHosts: () => [] });
    expect(check(report, 'manifest (--user-data-dir)')).toEqual({
      name: 'manifest (--user-data-dir)',
      ok: false,
      detail: '~/p/Local State is a file, not a browser profile folder',
      fix: 'pass --user-data-dir the folder the browser was started with (its --user-data-dir), not a file in it',
    });
  });

  it('--user-data-dir in a folder every user may write says why install does not write there, not the install it refuses (review 14d, 3)', async () => {
    const s = setup();
    const shared = path.join(s.homedir, 'shared');
    fs.mkdirSync(path.join(shared, 'profile'), { recursive: true });
    fs.chmodSync(shared, 0o777);
    const profile = path.join(shared, 'profile');
    expect((await install({ ...s, userDataDir: profile })).ok).toBe(false);
    const report = await doctor({ ...s, userDataDir: profile, listHosts: () => [] });
    expect(check(report, 'manifest (--user-data-dir)')).toEqual({
      name: 'manifest (--user-data-dir)',
      ok: false,
      detail: 'no host manifest, and install does not write one there: ~/shared can be written by every user (mode 777)',
      fix: 'start the browser with a --user-data-dir folder of your own that only you can write, and install for that one',
    });
  });

  it('Windows: reads the registry and follows it to the manifest', async () => {
    const { reg, options } = windowsMachine();
    await install({ ...options, browsers: ['edge'] });
    let report = await doctor({ ...options, listHosts: () => [] });
    expect(check(report, 'manifest (edge)').ok).toBe(true);
    expect(check(report, 'manifest (edge)').detail).toContain('registered at HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.comet_relay.host');
    // Read through `reg export` (UTF-16LE), not `reg query`'s OEM code page pipe (review 2026-12-05 #3).
    expect(reg.calls).toContainEqual(['reg', 'export', 'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.comet_relay.host', expect.any(String), '/y']);

    reg.values.set('hkcu\\software\\microsoft\\edge\\nativemessaginghosts\\com.comet_relay.host', 'C:\\moved\\x.json');
    report = await doctor({ ...options, listHosts: () => [] });
    expect(check(report, 'manifest (edge)')).toMatchObject({ ok: false, detail: expect.stringContaining('points to C:\\moved\\x.json, which does not exist') });
  });

  it('no browser at all and nothing registered: says so', async () => {
    const s = setup();
    fs.rmSync(path.join(s.homedir, '.config'), { recursive: true });
    const report = await doctor({ ...s, listHosts: () => [] });
    expect(check(report, 'browser')).toMatchObject({ ok: false, detail: expect.stringContaining('no supported browser found') });
  });
});

describe('doctor --page', () => {
  const diagnosis = (probes: PageDiagnosis['probes'], over: Partial<PageDiagnosis> = {}): PageDiagnosis => ({
    url: 'https://www.perplexity.ai/search/x',
    title: 'X - Perplexity',
    set: { name: 'gen-b-2026-10', source: 'built-in' },
    confident: true,
    candidates: [{ name: 'gen-b-2026-10', score: 2, present: [], conflicting: [] }],
    probes,
    ...over,
  });

  it('lists each probe with its count; a miss that only happens in some states is not a breakage', () => {
    const { text, ok } = formatPageReport(
      diagnosis([
        { probe: 'composer', matched: true, count: 1, selector: '#ask-input' },
        { probe: 'turn', matched: true, count: 3, selector: '[data-workflow-entry]' },
        { probe: 'stopButton', matched: false, count: 0, tried: ['button[aria-label*="Stop"]'] },
      ]),
    );
    expect(ok).toBe(true);
    expect(text).toContain('Selector set gen-b-2026-10 (built-in)');
    expect(text).toContain('✔ composer — 1 element (#ask-input)');
    expect(text).toContain('✔ turn — 3 elements ([data-workflow-entry])');
    expect(text).toContain('· stopButton — no match (expected only while an answer is being written): tried `button[aria-label*="Stop"]`');
    expect(text).toContain('2 of 3 probes match.');
  });

  it('a repair in use is reported with its one line and its own probes', () => {
    const notice = 'Read through a repair: selectors for answer, prose derived on 2026-12-02 from https://www.perplexity.ai/search/x against its thread JSON; the side panel can undo it or export it as a pack.';
    const { text } = formatPageReport({
      ...diagnosis([{ probe: 'composer', matched: true, count: 1, selector: '#ask-input' }]),
      repair: { notice, name: 'gen-b-2026-12-derived', probes: [{ probe: 'answer', matched: true, count: 2, selector: 'div[data-flow-final-text]' }] },
    });
    expect(text).toContain(notice);
    expect(text).toContain('  gen-b-2026-12-derived, reading only:\n  ✔ answer — 2 elements (div[data-flow-final-text])');
  });

  it('the page’s ask stream: the tap connected and what it saw, and a frame shape the reader does not know, named', () => {
    const base = diagnosis([{ probe: 'composer', matched: true, count: 1, selector: '#ask-input' }]);
    expect(formatPageReport({ ...base, stream: { tap: true, streams: 2, reader: 'ask-stream-2026-08' } }).text).toContain(
      '✔ ask stream — the tap is connected, 2 streams seen, read with ask-stream-2026-08',
    );
    expect(formatPageReport({ ...base, stream: { tap: false, streams: 0 } }).text).toContain('· ask stream — the tap did not answer');
    const unknown = formatPageReport({ ...base, stream: { tap: true, streams: 1, reader: 'ask-stream-2026-08', unknown: 'ask-stream-2026-08: frame 3 is not JSON (oops…)' } });
    expect(unknown.text).toContain('✘ ask stream — a frame shape the reader does not know: ask-stream-2026-08: frame 3 is not JSON (oops…); turns are read from the page and the thread JSON.');
    // The page is still read: an unknown stream is not a broken page.
    expect(unknown.ok).toBe(true);
  });

  it('a missed essential probe, or no recognised set, fails and says how to report it', () => {
    const { text, ok } = formatPageReport(
      diagnosis([{ probe: 'composer', matched: false, count: 0, tried: ['#ask-input'], invalid: ['a[[x'] }], {
        confident: false,
        set: { name: 'gen-b-2026-12', source: '/h/selectors/x.json' },
      }),
    );
    expect(ok).toBe(false);
    expect(text).toContain('Selector set gen-b-2026-12 (from /h/selectors/x.json) — NOT recognised');
    expect(text).toContain('✘ composer — no match: tried `#ask-input`');
    expect(text).toContain('not a valid selector in this browser: `a[[x`');
    expect(text).toContain(`The page is not understood (composer missed). Save a sanitized copy with \`${cliCommand('capture')}\``);
  });
});

describe('doctor --page is one of the checks (new-user review #7)', () => {
  const page = (over: Partial<PageDiagnosis> = {}): PageDiagnosis => ({
    url: 'https://www.perplexity.ai/search/x',
    title: 'X - Perplexity',
    set: { name: 'gen-b-2026-10', source: 'built-in' },
    confident: true,
    candidates: [{ name: 'gen-b-2026-10', score: 2, present: [], conflicting: [] }],
    probes: [{ probe: 'composer', matched: true, count: 1, selector: '#ask-input' }],
    ...over,
  });

  it('#7: no host: skipped like the other checks that need one, before the summary, and never "run doctor"', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    let asked = false;
    const report = await doctor({
      ...s,
      listHosts: () => [],
      queryPage: async () => {
        asked = true;
        return page();
      },
    });
    expect(asked).toBe(false);
    expect(check(report, 'page probes')).toMatchObject({ ok: true, skipped: true, detail: 'skipped: no host to ask' });
    const text = formatDoctor(report);
    expect(text.split('\n').at(-2)).toBe('- page probes — skipped: no host to ask');
    expect(text.split('\n').at(-1)).toBe('1 problem found; start with "host running".');
  });

  it('#7: probes that miss, or a tab that cannot be asked, are counted in the summary, with a fix that fits', async () => {
    const s = setup();
    await install({ ...s, browsers: ['chromium'] });
    const missed = await doctor({
      ...s,
      listHosts: () => [host()],
      queryStatus: async () => status(),
      queryPage: async () => page({ probes: [{ probe: 'composer', matched: false, count: 0, tried: ['#ask-input'] }] }),
    });
    expect(check(missed, 'page probes')).toMatchObject({ ok: false, detail: 'the page is not understood (composer missed)', fix: expect.stringContaining(`\`${cliCommand('capture')}\``) });
    const text = formatDoctor(missed);
    // Probe by probe under the check, then its fix, then the summary that counts it.
    expect(text).toContain('✘ page probes — the page is not understood (composer missed)\n    Page probes on https://www.perplexity.ai/search/x ("X - Perplexity")');
    expect(text).toContain('\n    ✘ composer — no match: tried `#ask-input`\n');
    expect(text.split('\n').at(-1)).toBe('1 problem found; start with "page probes".');
    expect(missed.exitCode).toBe(1);

    const failed = await doctor({
      ...s,
      listHosts: () => [host()],
      queryStatus: async () => status(),
      queryPage: async () => {
        throw new RelayError('TIMEOUT', 'The page did not answer.');
      },
    });
    expect(check(failed, 'page probes')).toMatchObject({ ok: false, detail: 'could not ask the Perplexity tab: [TIMEOUT] The page did not answer.', fix: `reload the Perplexity tab and wait for it to load, then run: ${cliCommand('doctor --page')}` });
    expect(formatDoctor(failed).split('\n').at(-1)).toBe('1 problem found; start with "page probes".');

    const fine = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status(), queryPage: async () => page() });
    expect(check(fine, 'page probes')).toMatchObject({ ok: true, detail: 'selector set gen-b-2026-10 reads the page: 1 of 1 probes match' });
    expect(fine.exitCode).toBe(0);
    // No Perplexity tab: nothing to probe, said once, in the tab's own check.
    const noTab = await doctor({ ...s, listHosts: () => [host()], queryStatus: async () => status({ perplexityTab: null }), queryPage: async () => page() });
    expect(check(noTab, 'page probes')).toMatchObject({ ok: true, skipped: true });
  });
});

describe("doctor's fix for an install --user-data-dir says to start the browser with it (new-user review #19)", () => {
  it('#19: with --user-data-dir, and from the record when doctor is run with only --home', async () => {
    const s = setup();
    fs.rmSync(path.join(s.homedir, '.config'), { recursive: true });
    const home = path.join(s.homedir, 'relay');
    const profile = path.join(s.homedir, 'udd');
    await install({ ...s, home, userDataDir: profile });
    const started = `open the browser started with --user-data-dir=${profile} with the comet-relay extension enabled`;
    expect(check(await doctor({ ...s, home, userDataDir: profile, listHosts: () => [] }), 'host running').fix).toContain(started);
    const byHome = await doctor({ ...s, home, listHosts: () => [] });
    expect(check(byHome, 'host running').fix).toContain(started);
    // Its registration is found and checked, not "no host manifest installed".
    expect(check(byHome, 'manifest (--user-data-dir ~/udd)')).toMatchObject({ ok: true });
    expect(byHome.checks.map((c) => c.name)).not.toContain('browser');
  });
});

describe("doctor holds a registration to install's rule for where a manifest may be (review 11g, G4)", () => {
  it('a manifest in a folder every user may write (one made before install refused it) fails, saying what to do', async () => {
    const s = setup();
    const home = path.join(s.homedir, 'relay');
    const profile = path.join(s.homedir, 'udd');
    await install({ ...s, home, userDataDir: profile });
    fs.chmodSync(profile, 0o777);
    expect(check(await doctor({ ...s, home, userDataDir: profile, listHosts: () => [] }), 'manifest (--user-data-dir)')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/udd\/NativeMessagingHosts\/com\.comet_relay\.host\.json: ~\/udd can be written by every user \(mode 777\), so another user could change what your browser starts/),
      fix: 'pass a --user-data-dir inside a folder of your own (`mktemp -d` makes one), then install again with it',
    });
  });
});
