import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS, commandHelp, runCommand } from '../../lib/cli/commands';
import { nearest } from '../../lib/cli/usage';
import { cliCommand, commandPrefix } from '../../lib/relay/invocation';
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
      [['serve', '--port'], `Option '--port <value>' argument missing for \`${prefix} serve\``],
      [['serve', '--port', 'abc'], '--port abc is not a port number'],
      [['install', '--browser', 'firefox'], 'Unknown browser "firefox"'],
      [['config'], 'Name the client'],
      [['config', 'cursr'], 'Unknown client "cursr". Did you mean cursor?'],
      [['selectors', 'lst'], 'unknown action "lst". Did you mean list?'],
      [['serve', '--allow-acting'], '--allow-acting only matters with --public-url'],
      [['serve', '--public-url', 'http://relay.example.com'], 'must start with https://'],
      [['mcp', '--tools', 'comet_nonesuch'], 'Unknown tool name(s) in --tools: comet_nonesuch'],
      [['--port', '8080'], 'Unknown option --port.'],
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
  it('`status` and `status --json` agree: no browser connected is exit 1 either way, [] as JSON', async () => {
    let r = await run('status');
    expect(r.code).toBe(1);
    expect(r.out).toBe(`No browser is connected. Open Comet or Chrome with the comet-relay extension; \`${cliCommand('doctor')}\` checks the set-up.\n`);
    out = '';
    r = await run('status', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toEqual([]);
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
    expect(err).toContain('the local token was replaced');
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
