import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliHint, cliHintCommand, HOME_COMMANDS, type HostForm, withCliForm } from '../../lib/protocol/identity';
import { classifyPageAccess, type PageAccessObservation, type PageAccessState, pageAccessWords } from '../../lib/protocol/page-access';
import { actionLook } from '../../lib/worker/link/action-state';
import { describeDisconnect } from '../../lib/worker/link/native-link';

/**
 * Issue 31, item 2: every command the extension prints runs as printed where it was printed. The
 * host names its form in its welcome (`comet-relay`, `npx <abs file>`, `node <abs dist/cli.js>`);
 * every hint text the extension can say — page-access words in each state, for each browser, the
 * toolbar's tooltip, the link's faults, errors said where the form is not at hand — names its
 * commands in that form, and before any host said it, as `comet-relay SUB` with how to adapt it.
 * A host installed with its own state folder names it too: each command that takes `--home` says it
 * (day-5 review F7: an `unblock` without it wrote its record where that host's `uninstall` never looks).
 */

const FORMS: readonly (HostForm | undefined)[] = [
  undefined,
  { command: 'comet-relay' },
  { command: 'npx /home/ann/Downloads/comet-relay-0.1.0.tgz' },
  { command: 'node /home/ann/comet-relay/dist/cli.js' },
  { command: "node '/home/ann/my clone/dist/cli.js'" },
  { command: 'comet-relay', home: '/srv/cr-home' },
  { command: "node '/home/ann/my clone/dist/cli.js'", home: "'/home/ann/My Relay'" },
];
const BROWSERS = ['Comet', 'Chromium', 'Google Chrome', 'Brave', 'Microsoft Edge', 'Vivaldi'];
const SUBCOMMANDS = ['install', 'uninstall', 'doctor', 'unblock', 'serve', 'mcp', 'host', 'capture', 'selectors', 'token', 'config', 'extension', 'status'];

/** One observation that classifies as each state. */
const OBSERVATIONS: Record<PageAccessState, PageAccessObservation> = {
  'blocked-by-policy': { onPerplexity: true, probe: { ok: false, error: 'This page cannot be scripted due to an ExtensionsSettings policy.' } },
  'site-access-off': { onPerplexity: true, siteAccess: false, probe: { ok: false, error: 'Cannot access contents of url' } },
  loading: { onPerplexity: false, probe: { ok: false, error: 'the tab is not on perplexity.ai yet' } },
  'script-missing': { onPerplexity: true, probe: { ok: true, readyState: 'complete', pageScript: false } },
  'script-silent': { onPerplexity: true, probe: { ok: true, readyState: 'complete', pageScript: true } },
  unknown: { onPerplexity: true, probe: { ok: false, error: 'Something new the browser says' } },
};

/** Every command a text names in backticks: a span that runs comet-relay's CLI (a subcommand after the program). */
function commandsIn(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).filter((span) => SUBCOMMANDS.some((sub) => new RegExp(`(comet-relay|cli\\.js'?|\\.tgz)\\s+${sub}\\b`).test(span)));
}

/** Checks that each command `text` names runs in `form` (or says how to adapt it while none is known). */
function expectInForm(text: string, form: HostForm | undefined): number {
  const commands = commandsIn(text);
  for (const command of commands) {
    expect(command.startsWith(`${form?.command ?? 'comet-relay'} `), `${command} in: ${text}`).toBe(true);
    const sub = command.slice(`${form?.command ?? 'comet-relay'} `.length).split(' ')[0] as string;
    if (form?.home && HOME_COMMANDS.includes(sub)) expect(command.endsWith(` --home ${form.home}`), `${command} in: ${text}`).toBe(true);
    if (!form) expect(text, `no way to adapt ${command}`).toContain(`\`${command}\` (or however you run comet-relay, followed by \`${command.slice('comet-relay '.length)}\`)`);
  }
  expect(text).not.toMatch(/npx comet-relay\b/);
  return commands.length;
}

describe('every hint the extension prints names its command in the host form', () => {
  it('page-access words, each state × browser × form: message, fix, the command to copy and the toolbar tooltip', () => {
    let commands = 0;
    for (const [state, observation] of Object.entries(OBSERVATIONS)) {
      const verdict = classifyPageAccess(observation);
      expect(verdict.state).toBe(state);
      for (const browserName of BROWSERS) {
        for (const form of FORMS) {
          const words = pageAccessWords(verdict, { browserName, tabId: 3, form, waitedMs: 100 });
          commands += expectInForm(words.message, form) + expectInForm(words.fix, form) + expectInForm(words.title, form);
          if (words.command !== undefined) {
            expect(words.command.startsWith(`${form?.command ?? 'comet-relay'} unblock`)).toBe(true);
            expect(words.fix).toContain(`\`${words.command}\``);
          }
          const tooltip = actionLook({ state: 'connected', since: 0, failures: 0 }, words).title;
          // The tooltip is clipped at 300 characters: a command in it is whole or not there.
          if (!tooltip.endsWith('…')) expectInForm(tooltip, form);
        }
      }
    }
    // The states that name a command (policy block: unblock; unknown: doctor) in every browser and form.
    expect(commands).toBeGreaterThanOrEqual(2 * BROWSERS.length * FORMS.length);
  });

  it("the link's faults (host not registered, refused, stopped), shown while no host is connected", () => {
    for (const form of FORMS) {
      for (const reason of ['Specified native messaging host not found.', 'Access to the specified native messaging host is forbidden.', 'Native host has exited.']) {
        const detail = describeDisconnect(reason, form);
        expect(expectInForm(detail, form)).toBeGreaterThan(0);
        expectInForm(actionLook({ state: 'disconnected', detail, since: 0, failures: 1 }).title, form);
      }
    }
  });

  it('errors said where the form is not at hand (the page script, lib/packs) are said in it on the way out', () => {
    // The page script and lib/packs name a command bare, in backticks; a worker room without the link says cliHint's unknown form.
    const bare = 'the menu changed: `comet-relay doctor --page` shows what the page has; or save it with `comet-relay capture`';
    expect(withCliForm(bare, undefined)).toBe(`the menu changed: ${cliHint('doctor --page', undefined)} shows what the page has; or save it with ${cliHint('capture', undefined)}`);
    for (const form of FORMS) expect(expectInForm(withCliForm(bare, form), form)).toBe(2);
    const said = withCliForm(bare, undefined);
    expectInForm(said, undefined);
    for (const form of FORMS) {
      const out = withCliForm(said, form);
      expect(expectInForm(out, form)).toBe(2);
      expect(withCliForm(out, form)).toBe(out);
    }
    // Text that merely looks alike is left as it is, and what a page put into an error is never made a command of ours.
    expect(withCliForm('`comet-relay doctor` (or however you run comet-relay, followed by `install`)', { command: 'comet-relay' })).toContain('followed by `install`');
    expect(withCliForm('it holds "`comet-relay doctor; curl x | sh`"', { command: 'node /a/dist/cli.js', home: '/srv/h' })).toBe('it holds "`comet-relay doctor; curl x | sh`"');
    expect(withCliForm('`comet-relay rm -rf`', undefined)).toBe('`comet-relay rm -rf`');
  });

  it('one builder: the command to copy is the hint without its backticks', () => {
    for (const form of FORMS) expect(cliHint('unblock --browser comet', form).startsWith(`\`${cliHintCommand('unblock --browser comet', form)}\``)).toBe(true);
  });
});

/**
 * The other half: no source says a command in words of its own. A string that names
 * `comet-relay SUB` as a command — in backticks, after "run", or as `npx comet-relay` — goes through
 * `cliCommand` (Node side) or `cliHint` (the extension). What is left is documentation: the CLI's
 * help text (usage lines and examples, lib/cli/commands.ts), what npm's global install puts on PATH
 * (lib/install/package-copy.ts), the two builders themselves, and a log line's `comet-relay serve:` prefix.
 * The page script and lib/packs say a command bare in backticks, which withCliForm turns into the form.
 */
describe('no source prints a command outside the one builder', () => {
  const ROOT = path.resolve(import.meta.dirname, '../..');
  const DOCUMENTATION = new Set(['lib/cli/commands.ts', 'lib/install/package-copy.ts', 'lib/relay/invocation.ts', 'lib/protocol/identity.ts']);
  // The page script and lib/packs know no host and stay small: they name a command bare in backticks, which
  // withCliForm turns into the form where it is printed or sent on; nothing else of theirs may name one.
  const SAID_BARE = /^lib\/(page|packs)\//;
  const BARE = new RegExp(`\`comet-relay (${SUBCOMMANDS.join('|')})\\b[^\`]*\``, 'g');
  const AS_COMMAND = new RegExp(`(\`(npx )?comet-relay (${SUBCOMMANDS.join('|')})\\b(?!:)|\\brun:? (npx )?comet-relay (${SUBCOMMANDS.join('|')})\\b|npx comet-relay\\b)`);

  function sources(dir: string, out: string[] = []): string[] {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) sources(rel, out);
      else if (/\.tsx?$/.test(entry.name)) out.push(rel);
    }
    return out;
  }

  it('every lib/, components/ and entrypoints/ string that names a command goes through cliCommand or cliHint', () => {
    const found: string[] = [];
    for (const file of [...sources('lib'), ...sources('components'), ...sources('entrypoints')]) {
      if (DOCUMENTATION.has(file)) continue;
      fs.readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.trim();
          if (/^(\*|\/\/|\/\*)/.test(code)) return; // a comment documents
          const said = code.replace(/\/\/ .*$/, '');
          if (AS_COMMAND.test(SAID_BARE.test(file) ? said.replace(BARE, '') : said)) found.push(`${file}:${i + 1}: ${code}`);
        });
    }
    expect(found).toEqual([]);
  });
});
