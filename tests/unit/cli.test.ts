import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS, commandHelp, runCommand, usage } from '../../lib/cli/commands';
import { exportOptions } from '../../lib/cli/export/export-command';
import { nearest } from '../../lib/cli/usage';
import { writeHostRecord } from '../../lib/relay/discovery';
import { cliCommand, commandPrefix, quoteArg } from '../../lib/relay/invocation';
import { HOME_COMMANDS } from '../../lib/protocol/identity';
import { VERSION } from '../../lib/relay/version';

/**
 * The CLI as a person meets it: help where people look for it (`<cmd> --help`, `-h`, `help <cmd>`),
 * one error format and one exit code for what it cannot take (2), and the output docs/commands.md
 * and the README promise, from the command itself (runCommand, in this process, with a state
 * folder of its own).
 */
let out = '';
let err = '';
let home: string;
const saved = process.env.COMET_RELAY_HOME;

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-cli-'));
  process.env.COMET_RELAY_HOME = home;
});

afterEach(() => {
  vi.restoreAllMocks();
  if (saved === undefined) delete process.env.COMET_RELAY_HOME;
  else process.env.COMET_RELAY_HOME = saved;
  fs.rmSync(home, { recursive: true, force: true });
});

const run = async (...argv: string[]) => {
  const [name, ...args] = argv;
  return { code: await runCommand(name, args), out, err };
};
const prefix = commandPrefix();

describe('help for every command, where people look for it', () => {
  it('every command has a summary, a usage line, options and at least one example', () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      expect(command.summary, name).toBeTruthy();
      expect(command.usage.startsWith(`comet-relay ${name}`), name).toBe(true);
      expect(command.examples?.length ?? 0, `${name} has an example`).toBeGreaterThan(0);
      for (const example of command.examples ?? []) expect(example.startsWith('comet-relay '), example).toBe(true);
    }
  });

  it.each(Object.keys(COMMANDS))('`%s --help`, `-h` and `help %s` print its usage, options and example, exit 0', async (name) => {
    const help = commandHelp(name);
    expect(help).toContain(`Usage: ${prefix} ${name}`);
    expect(help).toContain('Options:');
    expect(help).toContain('-h, --help');
    expect(help).toMatch(/\nExamples?:\n {2}\S/);
    for (const argv of [[name, '--help'], [name, '-h'], ['help', name]]) {
      out = '';
      expect(await runCommand(argv[0], argv.slice(1)), argv.join(' ')).toBe(0);
      expect(out).toBe(help);
    }
    expect(err).toBe('');
  });

  it('--help wins over the rest of the line, even an option the command does not know', async () => {
    expect((await run('install', '--browser', 'nonesuch', '--help')).code).toBe(0);
    expect(out).toBe(commandHelp('install'));
  });

  it('each option the help lists is one the command takes', async () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      for (const [flag] of command.options ?? []) {
        const option = flag.split(' ')[0] as string;
        err = '';
        // An unknown option would be refused before the command ran; a known one gets past the parser.
        await runCommand(name, [option, ...(flag.includes(' ') ? ['x'] : []), '--nonesuch']);
        expect(err, `${name} ${option}`).toContain('Unknown option --nonesuch');
      }
    }
  });

  it('bare `comet-relay`, `help`, `--help` and `-h` print the global help, exit 0', async () => {
    for (const argv of [[], ['help'], ['--help'], ['-h']]) {
      out = '';
      expect(await runCommand(argv[0], argv.slice(1))).toBe(0);
      expect(out).toContain(`comet-relay ${VERSION} — use Perplexity`);
      for (const name of Object.keys(COMMANDS)) expect(out).toContain(`  ${name.padEnd(10)} `);
      expect(out).toContain(`${prefix} help COMMAND`);
    }
  });
});

describe('one error format, one exit code for what the CLI cannot take', () => {
  const usageError = /^comet-relay: \[CONFIG_ERROR\] .+\n$/;

  it('an unknown command names the nearest one; `help nonesuch` says it is unknown; both exit 2', async () => {
    let r = await run('instal');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(usageError);
    expect(r.err).toContain('Unknown command "instal". Did you mean install?');
    expect(r.out).toBe('');
    err = '';
    r = await run('help', 'nonesuch');
    expect(r.code).toBe(2);
    expect(r.err).toBe(`comet-relay: [CONFIG_ERROR] Unknown command "nonesuch". \`${prefix} help\` lists the commands.\n`);
    expect(r.out).toBe('');
  });

  it('an unknown option, a missing value, a bad value: the same format, exit 2, the nearest name when there is one', async () => {
    const cases: [string[], string][] = [
      [['install', '--browsr', 'chrome'], `Unknown option --browsr for \`${prefix} install\`. Did you mean --browser? \`${prefix} install --help\` lists its options.`],
      [['doctor', '--hepl'], 'Did you mean --help?'],
      [['status', '-x'], `Unknown option -x for \`${prefix} status\`.`],
      [['serve', '--port'], `--port needs a value. --port N: the port on 127.0.0.1 (default 7777; 0 picks a free one). For example: \`${prefix} serve --port 8080 --read-only\`.`],
      [['serve', '--port', 'abc'], '--port abc is not a port number'],
      [['install', '--browser', 'firefox'], 'Unknown browser "firefox"'],
      [['config'], 'Name the client'],
      [['config', 'cursr'], 'Unknown client "cursr". Did you mean cursor?'],
      [['selectors', 'lst'], 'unknown action "lst". Did you mean list?'],
      [['serve', '--allow-acting'], '--allow-acting only matters with --public-url'],
      [['serve', '--public-url', 'http://relay.example.com'], 'must start with https://'],
      [['mcp', '--tools', 'comet_nonesuch'], 'Unknown tool name(s) in --tools: comet_nonesuch'],
      [['--port', '8080'], 'Unknown option --port: an option goes after a command.'],
      [['--home', '/tmp/x'], 'Unknown option --home: an option goes after a command.'],
      // Near a command, it is named (never the internal host) (day-6 review F6).
      [['--doctor'], 'Unknown option --doctor: an option goes after a command. Did you mean doctor?'],
      // `help` takes no option: never told to put one after the command's name (day-7 review F4).
      [['help', '--home'], "help doctor`, which lists doctor's options), not an option such as --home."],
    ];
    for (const [argv, message] of cases) {
      err = '';
      out = '';
      const code = await runCommand(argv[0], argv.slice(1));
      expect(code, argv.join(' ')).toBe(2);
      expect(err, argv.join(' ')).toMatch(usageError);
      expect(err, argv.join(' ')).toContain(message);
      expect(out, argv.join(' ')).toBe('');
    }
  });

  it('a failure while running is the same format with exit 1', async () => {
    const existing = path.join(home, 'taken.html');
    fs.writeFileSync(existing, '');
    const r = await run('capture', '--out', existing);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`comet-relay: [CONFIG_ERROR] ${existing} already exists; pass another name with --out FILE.\n`);
  });

  it('`export THREAD…` takes its threads as words: a bad one is named as such, two ways of choosing refused (new-user review #1)', async () => {
    const bad = await run('export', 'not a thread');
    expect(bad.code).toBe(2);
    expect(bad.err).not.toContain('takes no words');
    expect(bad.err).toMatch(/not a thread|slug|URL/);
    const both = await run('export', 'why-is-the-sky-blue-Ab12Cd34', '--all');
    expect(both.code).toBe(2);
    expect(both.err).toContain('not both');
  });

  it('suggests only what is near', () => {
    expect(nearest('instal', ['install', 'uninstall'])).toBe('install');
    expect(nearest('stat', ['status', 'serve'])).toBe('status');
    expect(nearest('frobnicate', ['install', 'status'])).toBeUndefined();
    expect(nearest('x', ['mcp'])).toBeUndefined();
  });
});

describe('what the docs say a command prints (README, docs/commands.md)', () => {
  it('`status` and `status --json` agree: no browser connected is exit 1 either way; the failure on stderr in the one format, [] as JSON (new-user review #11)', async () => {
    let r = await run('status');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `comet-relay: [EXTENSION_NOT_CONNECTED] No browser is connected. Open the browser you installed comet-relay in (Comet, Chrome, Chromium, Edge or Brave) with the extension enabled; \`${cliCommand('doctor')}\` checks the set-up.\n`,
    );
    err = '';
    r = await run('status', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual([]);
    expect(r.err).toBe('');
  });

  it('`config agent-api` prints the tool entry and how to fetch the public token, never a token', async () => {
    const token = (await run('token', '--public')).out.trim();
    out = '';
    const r = await run('config', 'agent-api', '--public-url', 'https://relay.example.com');
    expect(r.code).toBe(0);
    expect(r.out).toContain('"server_url": "https://relay.example.com/mcp"');
    expect(r.out).toContain(`$(${cliCommand('token --public')})`);
    expect(r.out).not.toContain(token);
  });

  it('`config http --port N` points at that port, with the local token', async () => {
    const token = (await run('token')).out.trim();
    out = '';
    const r = await run('config', 'http', '--port', '8080');
    expect(r.code).toBe(0);
    expect(r.out).toContain('"url": "http://127.0.0.1:8080/mcp"');
    expect(r.out).toContain(`Bearer ${token}`);
    expect(r.out).toContain(`Start the endpoint with: ${cliCommand('serve')}`);
  });

  it('`config gemini` and `config opencode` carry the ten-minute timeout the docs name', async () => {
    await run('config', 'gemini');
    expect(out).toContain('"timeout": 600000');
    expect(out).toContain('gemini mcp add --scope user --timeout 600000');
    out = '';
    await run('config', 'opencode');
    expect(out).toMatch(/"mcp": \{\s+"comet-relay": \{\s+"type": "local"/);
    expect(out).toContain('"timeout": 600000');
  });

  it('`token` prints only the token, the same one each time; `--rotate` replaces it', async () => {
    const first = (await run('token')).out;
    expect(first).toMatch(/^[\w-]{43}\n$/);
    out = '';
    expect((await run('token')).out).toBe(first);
    out = '';
    const rotated = (await run('token', '--rotate')).out;
    expect(rotated).not.toBe(first);
    expect(err).toContain(`the HTTP token was replaced; give the HTTP clients on this machine (\`${cliCommand('config http')}\` prints their entry) the new one`);
  });

  it('docs/commands.md names every command, with its help and exit codes', () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'commands.md'), 'utf8');
    for (const name of Object.keys(COMMANDS)) expect(doc, name).toMatch(new RegExp(`\\\`comet-relay (?:[a-z /]+ )?${name}\\b`));
    expect(doc).toContain('`comet-relay help [COMMAND]`, `COMMAND --help`, `COMMAND -h`');
    expect(doc).toMatch(/\| 2 \| not understood/);
  });

  it('`version` and `--version` print the version alone', async () => {
    expect((await run('version')).out).toBe(`${VERSION}\n`);
  });
});

describe('--home carries into every command a run prints (new-user review #2)', () => {
  let other: string;
  beforeEach(() => {
    other = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-cli-other home '));
  });
  afterEach(() => fs.rmSync(other, { recursive: true, force: true }));
  const withHome = (sub: string, dir: string) => `${prefix} ${sub} --home ${quoteArg(dir)}`;

  it('the commands that keep state all take --home; exactly those are the ones a hint gives it to', () => {
    const taking = Object.entries(COMMANDS)
      .filter(([, command]) => command.options?.some(([flag]) => flag.startsWith('--home ')))
      .map(([name]) => name);
    expect(taking.sort()).toEqual([...HOME_COMMANDS].sort());
    for (const name of ['mcp', 'serve', 'status', 'export', 'capture']) expect(taking, name).toContain(name);
  });

  it('`serve --home X --help` and `status --home X` are taken; status reads X and its hint names X', async () => {
    expect((await run('serve', '--home', other, '--help')).code).toBe(0);
    expect(out).toBe(commandHelp('serve'));
    out = '';
    const r = await run('status', '--home', other);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`\`${withHome('doctor', other)}\` checks the set-up`);
    // A host recorded in X (and not in COMET_RELAY_HOME) is the one status asks.
    err = '';
    writeHostRecord(other, {
      profileId: 'profile-in-x',
      profileLabel: 'Profile in X',
      browser: { name: 'Chromium', version: '1' },
      extensionVersion: VERSION,
      hostVersion: VERSION,
      socketPath: path.join(other, 'no.sock'),
      pid: process.pid,
      startedAt: new Date().toISOString(),
      connectedAt: new Date().toISOString(),
    });
    const asked = await run('status', '--home', other);
    expect(asked.code).toBe(1);
    expect(asked.out).toContain('Profile in X (profile-in-x)');
    expect(asked.out).toContain('not answering');
    expect(asked.err).toMatch(/^comet-relay: \[[A-Z_]+\] No browser profile with a host answered \(each is listed above, with why\)/);
    expect(asked.err).toContain(withHome('doctor', other));
  });

  it('the hints of token, config http, config agent-api and selectors name the --home given', async () => {
    await run('token', '--rotate', '--home', other);
    expect(err).toContain(`\`${withHome('config http', other)}\` prints their entry`);
    out = '';
    await run('config', 'http', '--home', other);
    expect(out).toContain(`Start the endpoint with: ${withHome('serve', other)} `);
    expect(out).toContain(`run: ${withHome('config agent-api', other)}.`);
    out = '';
    expect((await run('config', 'agent-api', '--home', other)).code).toBe(0);
    expect(out).toContain(`$(${withHome('token --public', other)})`);
    err = '';
    await run('selectors', 'remove', '--home', other);
    expect(err).toContain(`(\`${withHome('selectors list', other)}\` shows them)`);
  });

  it('COMET_RELAY_HOME given to the process counts too; a later run without --home does not keep an earlier one', async () => {
    await run('token', '--home', other);
    out = '';
    await run('config', 'http');
    expect(out).toContain(`Start the endpoint with: ${withHome('serve', home)} `);
    expect(out).not.toContain(other);
  });
});

describe('stdout read by a pipe that closes early (new-user review #4)', () => {
  const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');
  /** The built CLI with its stdout's reader gone before it writes: its code, and what it said on stderr. */
  const closedEarly = (...args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, COMET_RELAY_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      child.on('close', (code) => resolve({ code, stderr }));
    });

  it('`selectors list | head -1`: exits 0, quietly, with no stack trace', async () => {
    const r = await closedEarly('selectors', 'list');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('`mcp` whose client stopped reading ends, though its stdin stays open: its stdout is the MCP channel (day-6 review F4)', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { env: { ...process.env, COMET_RELAY_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.destroy();
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    const timer = setTimeout(() => child.kill(), 10_000);
    const code = await ended;
    clearTimeout(timer);
    expect(code).toBe(0);
  });

  it('a command that found a fault still exits 1 with its reader gone (day-5 review F3)', async () => {
    const r = await closedEarly('doctor', '--browser', 'chromium', '--user-data-dir', path.join(home, 'no-profile'));
    expect(r.stderr).not.toMatch(/node:events|at .*\.js:\d+/);
    expect(r.code).toBe(1);
  });

  it('an error of the command is still said, with its code', async () => {
    const r = await closedEarly('selectors', 'show', 'nonesuch');
    expect(r.stderr).toMatch(/^comet-relay: \[CONFIG_ERROR\] No selector set or reader is named "nonesuch"/);
    expect(r.code).toBe(1);
  });
});

describe('texts that name a command say it the way this copy is run (new-user review #9)', () => {
  it('serve --help, config --help, token --rotate and config with two clients', async () => {
    expect(prefix).not.toBe('comet-relay'); // otherwise this test could not tell
    for (const name of Object.keys(COMMANDS)) expect(commandHelp(name), name).not.toContain('`comet-relay ');
    expect(usage()).not.toContain('`comet-relay ');
    expect(commandHelp('serve')).toContain(`(\`${prefix} token --public\`)`);
    expect(commandHelp('config')).toContain(`the port \`${prefix} serve --port N\` listens on`);
    await run('token', '--rotate');
    expect(err).not.toContain('`comet-relay ');
    err = '';
    await run('config', 'claude-code', 'codex');
    expect(err).toContain(`\`${prefix} config\` takes one client, not "codex" too.`);
  });
});

describe('`help` answers --help (new-user review #10)', () => {
  it('`help --help`, `help -h` and `help help` print the list of commands, exit 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      out = '';
      expect(await runCommand('help', argv), argv.join(' ')).toBe(0);
      expect(out).toBe(usage());
    }
    expect(err).toBe('');
    out = '';
    expect(await runCommand('help', ['install', '--help'])).toBe(0);
    expect(out).toBe(commandHelp('install'));
  });
});

describe('usage errors say what is wrong and what to type (new-user review #16)', () => {
  it('a flag without its value names the flag, what it takes and an example', async () => {
    let r = await run('install', '--browser');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--browser needs a value. --browser B: only this browser, found or not: chrome, chromium, brave, edge, comet, or all');
    expect(r.err).toContain(`For example: \`${prefix} install --browser chrome\`.`);
    expect(r.err).not.toContain('argument missing');
    err = '';
    r = await run('install', '--home', '--browser', 'chrome');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--home needs a value, but is followed by the option --browser (a value that begins with "-" is written --home=-VALUE).');
    expect(r.err).toContain(`For example: \`${prefix} install --home DIR\`.`);
    err = '';
    r = await run('config', '--home');
    expect(r.err).toContain(`For example: \`${prefix} config claude-code --home DIR\`.`);
  });

  it('a file that is not JSON is said to be so, with where it breaks; no "field" to fix', async () => {
    const file = path.join(home, 'broken set.json');
    fs.writeFileSync(file, '{\n  "kind": "selector-set",\n  }\n');
    const r = await run('selectors', 'add', file);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not valid JSON \(.+ at line 3, column 3\)\. Correct it there and run/);
    expect(r.err).toContain(cliCommand(`selectors add ${quoteArg(file)}`));
    expect(r.err).not.toMatch(/field/);
  });
});

describe('config refuses a flag its client does not use, as serve does (new-user review #17)', () => {
  it.each([
    [['claude-code', '--port', '8080'], '--port does not apply to'],
    [['claude-code', '--public-url', 'https://a.example.com'], '--public-url does not apply to'],
    [['agent-api', '--port', '1'], '--port does not apply to'],
    [['agent-api', '--npx'], '--npx does not apply to'],
    [['http', '--npx'], '--npx does not apply to'],
    [['http', '--public-url', 'https://a.example.com'], '--public-url does not apply to'],
    [['http', '--port', '0'], '--port 0 is no port a client can call'],
  ])('config %j', async (argv, message) => {
    const r = await run('config', ...argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^comet-relay: \[CONFIG_ERROR\] .+\n$/);
    expect(r.err).toContain(message);
    expect(r.err).toMatch(/Leave it out\.|e\.g\. --port 8080/);
    expect(r.out).toBe('');
  });

  it('what does apply is taken: --home everywhere, --npx for a stdio client, --port for http, --public-url for agent-api', async () => {
    for (const argv of [['claude-code', '--npx', '--home', home], ['http', '--port', '8080', '--home', home], ['agent-api', '--public-url', 'https://a.example.com', '--home', home]]) {
      expect(await runCommand('config', argv), argv.join(' ')).toBe(0);
    }
    expect(err).toBe('');
  });
});

describe('one name for one thing (new-user review #8, #14)', () => {
  it('`export --format markdown` is md, as the tool calls it', () => {
    expect(exportOptions({ all: true, format: 'markdown' }, []).format).toBe('md');
    expect(exportOptions({ all: true, format: 'md' }, []).format).toBe('md');
  });

  it('the HTTP token, the public door, selector sets and readers: no other name in help, hints or listings', async () => {
    await run('token', '--rotate');
    await run('token', '--public', '--rotate');
    await run('selectors', 'list');
    const said = [...Object.keys(COMMANDS).map((name) => commandHelp(name)), usage(), out, err].join('\n');
    expect(said).not.toMatch(/bearer token|local token|public address|data pack/i);
    expect(said).toContain('HTTP token');
    expect(said).toContain('public door');
    expect(said).toContain('Selector sets and readers added in');
    expect(commandHelp('mcp')).toContain('Gemini CLI, opencode');
  });
});
