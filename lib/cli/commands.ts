import path from 'node:path';
import type { Settings } from '../config/settings';
import type { PublicUrl } from '../mcp/public-url';
import { offeredAt, type ToolDefinition, toolAccess } from '../mcp/tool';
import { RelayError } from '../protocol/errors';
import { EXTENSION_ID } from '../protocol/identity';
import { cliCommand, useGivenHome } from '../relay/invocation';
import { checkStateFolder, type LogName, logsDir, publicTokenPath, stateDir, tokenPath } from '../relay/paths';
import { VERSION } from '../relay/version';
import { parseFlags, parsePort, parseToolList } from './args';
import { didYouMean, EXIT_FAILED, EXIT_OK, EXIT_USAGE, exitCodeOf, formatCliError, saidInHelp, spoken, UsageError } from './usage';

/*
 * Every command loads what it needs when it runs (`await import`): in the built bundle
 * (dist/commands.js) a module's code runs only once imported, so `comet-relay mcp` never starts the
 * HTTP server's modules, the installer or the doctor, and `install` never builds the MCP SDK's
 * schemas (a short cold start for every command).
 */
/**
 * The subcommands, each a small declarative entry: what it does, how to call it, its help (as
 * data: `comet-relay <cmd> --help` and `comet-relay help <cmd>` print it), and its runner. Command
 * lines in `usage` and `examples` start with `comet-relay`; help says them the way this copy is run.
 */
export interface Command {
  summary: string;
  usage: string;
  /** Each option as it is typed (`--port N`) and what it does; `--help` is added to every command. */
  options?: readonly (readonly [flag: string, about: string])[];
  /** Command lines to copy, at least one (tests/unit/cli.test.ts holds every command to it). */
  examples?: readonly string[];
  /** What else a person should know before running it. */
  notes?: string;
  run(args: string[], settings: Settings): Promise<number>;
}

const USER_DATA_DIR_OPTION = ['--user-data-dir DIR', 'only the browser profile folder DIR (a browser started with --user-data-dir DIR)'] as const;
const HOME_OPTION = ['--home DIR', 'the state folder (token, logs, launcher, selector sets); default COMET_RELAY_HOME or the per-user one'] as const;
const TOOLS_OPTION = ['--tools a,b', "serve only these tools (an allowlist, like the Agent API's allowed_tools)"] as const;
const READ_ONLY_OPTION = ['--read-only', 'serve only tools whose every operation reads; an acting call is refused at run time too'] as const;
const PROFILE_OPTION = ['--profile ID|LABEL', 'the browser profile to drive when several are connected (default: the most recently connected; also COMET_RELAY_PROFILE)'] as const;

/** parseFlags with the command's own help, so a flag typed without its value is shown at work (args.ts). */
function flagsOf<const T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(name: string, args: string[], options: T, takesWords = false) {
  return parseFlags(name, args, options, takesWords, COMMANDS[name]);
}

/** The state folder: `--home DIR` when given, else COMET_RELAY_HOME or the per-user one (lib/relay/paths.ts). */
const stateFolder = (given: string | undefined) => (given ? checkStateFolder(path.resolve(given), '--home') : stateDir());

/** A value the person typed that a lower layer refused (a CONFIG_ERROR): a usage error, exit 2. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const e = RelayError.from(error, 'CONFIG_ERROR');
    throw e.code === 'CONFIG_ERROR' ? new UsageError(e.message) : e;
  }
}

/**
 * A command's own relay client to the browser of `--profile` (or COMET_RELAY_PROFILE), through the hosts of `--home`,
 * waiting for a host as long as COMET_HOST_WAIT says; the class comes in with the command's lazy import of lib/relay/client.
 */
async function commandClient(name: string, values: { profile?: string; home?: string }, settings: Settings) {
  const { RelayClient } = await import('../relay/client');
  return new RelayClient({ home: stateFolder(values.home), profile: values.profile ?? settings.COMET_RELAY_PROFILE, client: { name }, transport: 'stdio', hostWaitMs: settings.COMET_HOST_WAIT });
}

/** `--browser` as typed: a name that is not a browser is a usage error. */
async function browsersFlag(value: string | undefined) {
  const { parseBrowsers } = await import('../install');
  try {
    return parseBrowsers(value ?? 'all');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const setupFlags = {
  browser: { type: 'string' },
  'user-data-dir': { type: 'string' },
  home: { type: 'string' },
} as const;

const toolFlags = {
  tools: { type: 'string' },
  'read-only': { type: 'boolean' },
  profile: { type: 'string' },
  home: { type: 'string' },
} as const;

/** `selection`: tools and read-only decided by the caller (serve with --public-url), else by the flags. */
async function sessionOptions(
  values: { tools?: string; 'read-only'?: boolean; profile?: string; home?: string },
  settings: Settings,
  logName: LogName,
  selection?: { tools: ToolDefinition[]; readOnly: boolean },
) {
  const home = stateFolder(values.home);
  const [{ selectTools }, { createFileLogger }, { browserExecutableCandidates }, { prepareCometStart }] = await Promise.all([
    import('../mcp/tools'),
    import('../relay/logger'),
    import('../install/browsers'),
    import('../install/unblock'),
  ]);
  return {
    home,
    settings: { ...settings, COMET_RELAY_PROFILE: values.profile ?? settings.COMET_RELAY_PROFILE },
    tools: selection?.tools ?? asUsage(() => selectTools({ allow: parseToolList(values.tools), readOnly: values['read-only'] })),
    // The gateway refuses acting calls at run time too (lib/protocol/access.ts), whatever a tool declares.
    readOnly: selection?.readOnly ?? Boolean(values['read-only']),
    logger: createFileLogger({ dir: logsDir(home), name: logName }),
    browserCandidates: () => browserExecutableCandidates('comet'),
    // Only when the browser comet-relay starts is Comet, and only after `unblock --browser comet` (prepareCometStart checks).
    beforeLaunch: (executable: string) => {
      if (!/comet[^/\\]*$/i.test(executable)) return undefined;
      const result = prepareCometStart({ stateDir: home });
      return result.outcome === 'off' ? undefined : result.message;
    },
  };
}

export const COMMANDS: Record<string, Command> = {
  mcp: {
    summary: 'Serve MCP on stdin/stdout (for Claude Code, Claude Desktop, Codex, Cursor, VS Code, Windsurf, Gemini CLI, opencode).',
    usage: 'comet-relay mcp [--tools a,b] [--read-only] [--profile ID|LABEL] [--home DIR]',
    options: [TOOLS_OPTION, READ_ONLY_OPTION, PROFILE_OPTION, HOME_OPTION],
    examples: ['comet-relay mcp', 'comet-relay mcp --read-only --tools comet_ask,comet_wait,comet_get_sources'],
    notes: 'Your MCP client starts it: `comet-relay config CLIENT` prints the entry that makes it do so.',
    async run(args, settings) {
      const { values } = flagsOf('mcp', args, toolFlags);
      const { runStdio } = await import('../mcp/stdio');
      await runStdio(await sessionOptions(values, settings, 'mcp'));
      return 0;
    },
  },

  serve: {
    summary: 'Serve MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp (the HTTP token required); --public-url for a tunnel (read-only unless --allow-acting).',
    usage: 'comet-relay serve [--port 7777] [--tools a,b] [--read-only] [--profile ID|LABEL] [--public-url https://NAME [--allow-acting]] [--home DIR]',
    options: [
      ['--port N', 'the port on 127.0.0.1 (default 7777; 0 picks a free one)'],
      TOOLS_OPTION,
      READ_ONLY_OPTION,
      PROFILE_OPTION,
      ['--public-url https://NAME', 'also open the public door: take the requests a tunnel forwards for that address, with the public token only (`comet-relay token --public`); read-only unless --allow-acting'],
      ['--allow-acting', 'with --public-url: serve the tools that act on your browser through the public door too'],
      HOME_OPTION,
    ],
    examples: ['comet-relay serve', 'comet-relay serve --port 8080 --read-only', 'comet-relay serve --public-url https://relay.example.com'],
    notes: 'Every request needs the HTTP token `comet-relay token` prints; `comet-relay config http` prints a client entry with it. Stop it with Ctrl+C.',
    async run(args, settings) {
      const { values } = flagsOf('serve', args, { ...toolFlags, port: { type: 'string' }, 'public-url': { type: 'string' }, 'allow-acting': { type: 'boolean' } });
      const [{ parsePublicUrl }, { startHttpServer }, { ensureToken }] = await Promise.all([import('../mcp/public-url'), import('../mcp/http'), import('../install/token')]);
      const publicUrl = values['public-url'] === undefined ? undefined : asUsage(() => parsePublicUrl(values['public-url'] as string));
      const options = await sessionOptions(values, settings, 'serve', await serveTools(values, publicUrl));
      const token = ensureToken(options.home);
      // The public door takes only its own token, made (once) for it.
      const publicToken = publicUrl ? ensureToken(options.home, { kind: 'public' }) : undefined;
      const server = await startHttpServer({ ...options, port: parsePort(values.port, 7777), token, publicUrl, publicToken });
      process.stderr.write(
        `comet-relay serving MCP at ${server.url}${publicUrl ? ` and, through your tunnel, at ${publicUrl.mcpUrl}` : ''}\n` +
          `Send the HTTP token as "Authorization: Bearer <token>" (or the raw token); it is in ${tokenPath(options.home)} (\`${cliCommand('token')}\` prints it).\n` +
          `Tools: ${options.tools.map((t) => t.name).join(', ')}\n` +
          (publicUrl ? publicWarning(publicUrl, options.tools, publicTokenPath(options.home), server.port) : ''),
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      return 0;
    },
  },

  install: {
    summary: 'Register the native messaging host with your browsers (and create the HTTP token), then verify it.',
    usage: 'comet-relay install [--browser chrome|chromium|brave|edge|comet|all] [--user-data-dir DIR] [--home DIR]',
    options: [
      ['--browser B', 'only this browser, found or not: chrome, chromium, brave, edge, comet, or all (the default: every browser whose profile folder exists)'],
      USER_DATA_DIR_OPTION,
      ['--home DIR', 'the state folder (token, logs, launcher); baked into the launcher as COMET_RELAY_HOME'],
    ],
    examples: ['comet-relay install', 'comet-relay install --browser chrome'],
    notes: 'It writes a launcher that runs this copy with its absolute node path, a host manifest for each browser, and the HTTP token; then it verifies what it wrote. Exits 1 when a part failed.',
    async run(args) {
      const { values } = flagsOf('install', args, setupFlags);
      const browsers = await browsersFlag(values.browser);
      const { defaultCliPath, install, packageCopy, volatileCopyNote } = await import('../install');
      const report = await install({
        browsers,
        userDataDir: values['user-data-dir'],
        home: values.home,
        cliPath: defaultCliPath(),
      });
      const note = volatileCopyNote(packageCopy());
      process.stdout.write(`${[...report.lines, ...(note ? [note] : [])].join('\n')}\n`);
      return report.ok ? 0 : 1;
    },
  },

  extension: {
    summary: 'Print the folder of the built extension to load unpacked, its pinned ID, and the steps (--path: only the folder).',
    usage: 'comet-relay extension [--path]',
    options: [['--path', 'print only the folder']],
    examples: ['comet-relay extension', 'comet-relay extension --path'],
    async run(args) {
      const { values } = flagsOf('extension', args, { path: { type: 'boolean' } });
      const { COMET_FACTS, checkExtensionFolder, packageCopy, volatileCopyNote } = await import('../install');
      const copy = packageCopy();
      const folder = checkExtensionFolder(copy);
      if (!folder.ok) throw new RelayError('CONFIG_ERROR', `${folder.problem}. Fix: ${folder.fix}.`);
      if (values.path) {
        process.stdout.write(`${folder.dir}\n`);
        return 0;
      }
      const note = volatileCopyNote(copy);
      process.stdout.write(
        [
          `comet-relay extension ${folder.version ?? ''}`.trimEnd(),
          `  folder  ${folder.dir}`,
          `  ID      ${EXTENSION_ID} (pinned by the manifest's key: the same wherever the folder is; the native host admits only this ID)`,
          '',
          'Load it unpacked in Comet, Chrome, Chromium, Brave or Edge:',
          '  1. Open the extensions page: chrome://extensions (Comet: comet://extensions, Brave: brave://extensions, Edge: edge://extensions).',
          '  2. Turn on Developer mode.',
          '  3. Click "Load unpacked" and choose the folder above (in the file dialog, Ctrl+L on Linux or Cmd+Shift+G on macOS lets you paste the path).',
          `  4. Register the native host if you have not: ${cliCommand('install')}   (then reload the extension).`,
          `  5. Click the comet-relay toolbar icon: the side panel says Connected. If not: ${cliCommand('doctor')}`,
          `In Comet: Comet keeps extensions off perplexity.ai; \`${cliCommand('unblock')}\` lets this one in (it shows what it changes and asks first; --undo takes it back). comet-relay is a Manifest V3 extension (Comet turned Manifest V2 extensions off on ${COMET_FACTS.mv2Disabled.value}).`,
          ...(note ? ['', note] : []),
          '',
        ].join('\n'),
      );
      return 0;
    },
  },

  uninstall: {
    summary: 'Remove the native messaging registration (--purge also removes the token, logs and records).',
    usage: 'comet-relay uninstall [--browser B|all] [--user-data-dir DIR] [--home DIR] [--purge]',
    options: [
      ['--browser B', 'only this browser: chrome, chromium, brave, edge, comet, or all (the default: every place a manifest may be)'],
      USER_DATA_DIR_OPTION,
      HOME_OPTION,
      ['--purge', 'also remove the token, logs, records, sockets, code cache and uploaded attachments (selector sets you added stay)'],
    ],
    examples: ['comet-relay uninstall', 'comet-relay uninstall --purge'],
    async run(args) {
      const { values } = flagsOf('uninstall', args, { ...setupFlags, purge: { type: 'boolean' } });
      const browsers = await browsersFlag(values.browser);
      const { runUninstall } = await import('./uninstall-command');
      return runUninstall({ ...values, browsers }, { out: (text) => process.stdout.write(text) });
    },
  },

  unblock: {
    summary:
      "Let comet-relay's extension alone run on perplexity.ai where the browser's policy blocks extensions there (Comet as it ships): adds its entry to the ExtensionSettings policy; --undo takes back exactly that.",
    usage: 'comet-relay unblock [--browser comet|chrome|chromium|brave|edge] [--dry-run] [--undo] [--yes] [--all-extensions] [--home DIR] [--policy-dir DIR (Linux)]',
    options: [
      ['--browser B', 'the browser whose policy to change: comet (the default), chrome, chromium, brave or edge'],
      ['--dry-run', 'print exactly what it would write and where, and write nothing'],
      ['--undo', 'take back exactly what an earlier unblock wrote, and nothing else'],
      ['--yes', 'write without asking first (needed when there is no terminal to ask in)'],
      ['--all-extensions', 'lift the block for every extension (the "*" form the public workarounds use), after saying what that opens'],
      HOME_OPTION,
      ['--policy-dir DIR', "Linux: the browser's managed policy folder, where it is not the usual one"],
    ],
    examples: ['comet-relay unblock --dry-run', 'comet-relay unblock --browser comet', 'comet-relay unblock --browser chromium --undo'],
    notes: 'The policy lives where the browser reads it, outside your home folder, so writing it needs an administrator (the command says which sudo or elevated step). Restart the browser afterwards.',
    async run(args) {
      const { values } = flagsOf('unblock', args, {
        browser: { type: 'string' },
        'dry-run': { type: 'boolean' },
        undo: { type: 'boolean' },
        yes: { type: 'boolean' },
        'all-extensions': { type: 'boolean' },
        home: { type: 'string' },
        'policy-dir': { type: 'string' },
      });
      const { runUnblock } = await import('./unblock-command');
      return runUnblock(values, { out: (text) => process.stdout.write(text) });
    },
  },

  doctor: {
    summary: 'Check every link (manifest, launcher, node, host, extension, Perplexity tab) and say how to fix what is broken.',
    usage: 'comet-relay doctor [--page] [--browser B|all] [--user-data-dir DIR] [--home DIR]',
    options: [
      ['--page', 'also try every probe of the selector set in use on the Perplexity tab (read-only)'],
      ['--browser B', 'check only this browser: chrome, chromium, brave, edge, comet, or all (the default)'],
      ['--user-data-dir DIR', 'check the manifest of the browser profile folder DIR'],
      HOME_OPTION,
    ],
    examples: ['comet-relay doctor', 'comet-relay doctor --page'],
    notes: 'One line per check, with the fix for each failure; exits 0 when everything checked works, 1 when something is broken.',
    async run(args, settings) {
      const { values } = flagsOf('doctor', args, { ...setupFlags, page: { type: 'boolean' } });
      const browsers = await browsersFlag(values.browser);
      const [{ defaultCliPath, doctor, formatDoctor, resolveState }, { RelayClient }] = await Promise.all([
        import('../install'),
        import('../relay/client'),
      ]);
      const home = resolveState({ home: values.home }).stateDir;
      const probe = new RelayClient({
        home,
        profile: settings.COMET_RELAY_PROFILE,
        client: { name: 'comet-relay doctor' },
        transport: 'stdio',
        hostWaitMs: 0,
      });
      try {
        const report = await doctor({
          browsers,
          userDataDir: values['user-data-dir'],
          home: values.home,
          cliPath: defaultCliPath(),
          queryStatus: () => probe.call('browser.status', {}, { timeoutMs: 5000 }),
          // --page: every probe of the selector set in use, on the live Perplexity tab (read-only), one of the checks.
          queryPage: values.page ? () => probe.call('page.diagnose', {}, { timeoutMs: 10_000 }) : undefined,
        });
        process.stdout.write(`${formatDoctor(report)}\n`);
        return report.exitCode;
      } finally {
        probe.close();
      }
    },
  },

  config: {
    summary: 'Print the ready-to-paste MCP configuration for a client, or the Perplexity Agent API tool entry (agent-api).',
    usage: 'comet-relay config claude-code|claude-desktop|codex|cursor|vscode|windsurf|gemini|opencode|http [--npx] [--home DIR] [--port 7777] | agent-api [--public-url https://NAME]',
    options: [
      ['--npx', 'start the server with `npx comet-relay mcp` instead of absolute paths (for when the package is on the npm registry)'],
      ['--home DIR', 'the state folder the client must share with the browser (put in the entry as COMET_RELAY_HOME; http: its HTTP token), named in every command it prints'],
      ['--port N', 'http only: the port `comet-relay serve --port N` listens on (default 7777)'],
      ['--public-url https://NAME', 'agent-api only: the address your tunnel serves (otherwise a placeholder)'],
    ],
    examples: ['comet-relay config claude-code', 'comet-relay config http --port 8080', 'comet-relay config agent-api --public-url https://relay.example.com'],
    notes:
      'It prints text to paste and writes nothing. `http` includes the HTTP token; `agent-api` never prints a token: it prints the command that fetches the public one (`comet-relay token --public`). A flag for another kind of client (--port, --public-url, --npx) is refused, not ignored.',
    async run(args) {
      const { values, positionals } = flagsOf('config', args, { npx: { type: 'boolean' }, home: { type: 'string' }, port: { type: 'string' }, 'public-url': { type: 'string' } }, true);
      const client = positionals[0];
      const [{ agentApiConfig, CLIENTS, clientConfig, defaultCliPath, readToken, resolveState }, { selectTools }, { parsePublicUrl }] = await Promise.all([
        import('../install'),
        import('../mcp/tools'),
        import('../mcp/public-url'),
      ]);
      const names = [...CLIENTS, 'agent-api'];
      if (!client) throw new UsageError(`Name the client: ${spoken('comet-relay config')} ${names.join('|')}.`);
      if (!names.includes(client)) throw new UsageError(`Unknown client "${client}".${didYouMean(client, names)} Known: ${names.join(', ')}.`);
      if (positionals.length > 1) throw new UsageError(`\`${spoken('comet-relay config')}\` takes one client, not "${positionals.slice(1).join(' ')}" too.`);
      refuseOtherClientsFlags(client, values);
      if (client === 'agent-api') {
        const publicUrl = values['public-url'] === undefined ? undefined : asUsage(() => parsePublicUrl(values['public-url'] as string));
        // Only what the public door offers (lib/protocol/access.ts): never the tab list.
        const atPublicDoor = (tools: ToolDefinition[]) => tools.filter((t) => offeredAt(t, 'public')).map((t) => t.name);
        const readTools = atPublicDoor(selectTools({ readOnly: true }));
        const actingTools = atPublicDoor(selectTools({})).filter((name) => !readTools.includes(name));
        process.stdout.write(agentApiConfig({ serverUrl: publicUrl?.mcpUrl, allowedTools: readTools, actingTools }).text);
        return 0;
      }
      let config: ReturnType<typeof clientConfig>;
      try {
        config = clientConfig(client, {
          npx: values.npx,
          home: values.home,
          cliPath: defaultCliPath(),
          httpUrl: `http://127.0.0.1:${configPort(values.port)}/mcp`,
          token: client === 'http' ? readToken(resolveState({ home: values.home }).stateDir) : undefined,
        });
      } catch (error) {
        throw RelayError.from(error, 'CONFIG_ERROR');
      }
      process.stdout.write(`${config.text}\n`);
      return 0;
    },
  },

  capture: {
    summary: 'Save the Perplexity tab as a sanitized HTML fixture for a bug report (texts replaced, URLs cut to their host).',
    usage: 'comet-relay capture [--out FILE] [--profile ID|LABEL] [--home DIR]',
    options: [['--out FILE', 'the file to write (never overwritten; default perplexity-capture-<time>.html here)'], PROFILE_OPTION, HOME_OPTION],
    examples: ['comet-relay capture', 'comet-relay capture --out perplexity-page.html'],
    async run(args, settings) {
      const { values } = flagsOf('capture', args, { out: { type: 'string' }, profile: { type: 'string' }, home: { type: 'string' } });
      const [{ runCapture }, client] = await Promise.all([import('./capture-command'), commandClient('comet-relay capture', values, settings)]);
      try {
        return await runCapture(client, values.out, { out: (text) => process.stdout.write(text) });
      } finally {
        client.close();
      }
    },
  },

  export: {
    summary: 'Export your Perplexity threads, one Markdown (or JSON) file each, into a folder; run again, it fetches only threads with new activity.',
    usage: 'comet-relay export [THREAD…] [--all] [--space NAME] [--search TEXT] [--since YYYY-MM-DD] [--out DIR] [--format md|json] [--concurrency N] [--profile ID|LABEL] [--home DIR]',
    options: [
      ['--all', 'every thread of your library'],
      ['--space NAME', "only this Space's threads (its title or slug)"],
      ['--search TEXT', "only the threads the library's own search finds"],
      ['--since YYYY-MM-DD', 'only threads with activity on or after this day'],
      ['--out DIR', 'the folder (default ./perplexity-export); files are named by date and title'],
      ['--format F', 'md or markdown (Markdown with YAML front matter, the default), or json'],
      ['--concurrency N', 'threads fetched at once (default 3, at most 8)'],
      PROFILE_OPTION,
      HOME_OPTION,
    ],
    examples: [
      'comet-relay export --all',
      'comet-relay export --space Research --since 2026-11-01 --out notes/perplexity',
      'comet-relay export https://www.perplexity.ai/search/why-is-the-sky-blue-Ab12Cd34',
    ],
    notes:
      'It reads through your browser: the browser must run with the extension and be signed in to Perplexity. The folder keeps a manifest, so running the same command again resumes or updates it. A 429 from the site waits and goes on; a thread that still fails is named with why at the end, the others are written, and it exits 1.',
    async run(args, settings) {
      const { values, positionals } = flagsOf('export', args, {
        all: { type: 'boolean' },
        space: { type: 'string' },
        search: { type: 'string' },
        since: { type: 'string' },
        out: { type: 'string' },
        format: { type: 'string' },
        concurrency: { type: 'string' },
        profile: { type: 'string' },
        home: { type: 'string' },
      }, true);
      const [{ exportOptions, runExportCommand }, { relaySource }] = await Promise.all([import('./export/export-command'), import('./export/source')]);
      const options = exportOptions(values, positionals);
      const client = await commandClient('comet-relay export', values, settings);
      try {
        return await runExportCommand(options, relaySource(client, settings.COMET_THREAD_TABS), {
          out: (text) => process.stdout.write(text),
          err: (text) => process.stderr.write(text),
          tty: Boolean(process.stderr.isTTY),
          columns: process.stderr.columns,
          onInterrupt(handler) {
            process.on('SIGINT', handler);
            return () => process.off('SIGINT', handler);
          },
          exit: (code) => process.exit(code),
        });
      } finally {
        client.close();
      }
    },
  },

  selectors: {
    summary: 'Add, list, remove or show the selector sets that teach comet-relay a changed Perplexity page (no rebuild, no reload).',
    usage: 'comet-relay selectors add FILE | list [--json] | remove NAME | show NAME [--home DIR]',
    options: [['--json', 'list: as JSON'], HOME_OPTION],
    examples: ['comet-relay selectors list', 'comet-relay selectors show gen-b-2026-10-live', 'comet-relay selectors add my-set.json'],
    notes: 'add checks a file with the schema the extension uses before it goes into the folder; list exits 1 when a file there is skipped.',
    async run(args) {
      const { values, positionals } = flagsOf('selectors', args, { home: { type: 'string' }, json: { type: 'boolean' } }, true);
      const [{ runSelectors }, { resolveState }] = await Promise.all([import('./selectors-command'), import('../install')]);
      const home = resolveState({ home: values.home }).stateDir;
      return runSelectors(home, positionals, { json: values.json }, { out: (text) => process.stdout.write(text) });
    },
  },

  token: {
    summary:
      'Print the HTTP token `serve` requires (created if missing); --public the public token, the only one `serve --public-url`\'s public door takes; --rotate replaces it. Only the token goes to stdout.',
    usage: 'comet-relay token [--public] [--rotate] [--home DIR]',
    options: [
      ['--public', 'the public token: the only one the public door of `serve --public-url` takes'],
      ['--rotate', 'replace the token with a new one (a running serve keeps the old one until it restarts)'],
      HOME_OPTION,
    ],
    examples: ['comet-relay token', 'comet-relay token --public --rotate'],
    async run(args) {
      const { values } = flagsOf('token', args, { home: { type: 'string' }, public: { type: 'boolean' }, rotate: { type: 'boolean' } });
      const { ensureToken, rotateToken, resolveState } = await import('../install');
      const home = resolveState({ home: values.home }).stateDir;
      const kind = values.public ? 'public' : 'local';
      process.stdout.write(`${values.rotate ? rotateToken(home, { kind }) : ensureToken(home, { kind })}\n`);
      if (values.rotate) {
        const [what, who] =
          kind === 'public'
            ? ['public token', `what calls through the public door (the Agent API: \`${cliCommand('config agent-api')}\` prints its entry)`]
            : ['HTTP token', `the HTTP clients on this machine (\`${cliCommand('config http')}\` prints their entry)`];
        process.stderr.write(`comet-relay: the ${what} was replaced; give ${who} the new one. A running serve keeps the old one until it restarts.\n`);
      }
      return 0;
    },
  },

  status: {
    summary: 'Show the connected browser profiles, their MCP clients and their Perplexity tab.',
    usage: 'comet-relay status [--json] [--home DIR]',
    options: [['--json', 'as JSON: one entry per connected profile ([] when none)'], HOME_OPTION],
    examples: ['comet-relay status', 'comet-relay status --json'],
    notes:
      'Exits 0 when a connected profile answered, 1 when none did (no browser connected, or none answering), with or without --json; without it, that failure is also said on stderr as `comet-relay: [CODE] message`.',
    async run(args) {
      const { values } = flagsOf('status', args, { json: { type: 'boolean' }, home: { type: 'string' } });
      const [{ listHosts, shownRecord }, { RelayClient }] = await Promise.all([import('../relay/discovery'), import('../relay/client')]);
      const home = stateFolder(values.home);
      const hosts = listHosts(home);
      const rows = [];
      // Why the first profile that did not answer failed, for the one error line (the JSON keeps its shape).
      let failure: RelayError | undefined;
      for (const host of hosts) {
        const client = new RelayClient({ home, profile: host.profileId, client: { name: 'comet-relay status' }, transport: 'stdio', hostWaitMs: 0 });
        try {
          const [hostStatus, browser] = await Promise.all([
            client.hostStatus({ timeoutMs: 3000 }),
            client.call('browser.status', {}, { timeoutMs: 3000 }),
          ]);
          rows.push({ host: shownRecord(host), clients: hostStatus.clients.filter((c) => c.name !== 'comet-relay status'), tab: browser.perplexityTab });
        } catch (error) {
          const e = RelayError.from(error);
          failure ??= e;
          rows.push({ host: shownRecord(host), error: e.message });
        } finally {
          client.close();
        }
      }
      const code = rows.some((row) => !('error' in row)) ? EXIT_OK : EXIT_FAILED;
      if (values.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return code;
      }
      if (rows.length === 0) {
        // A failure like any other (docs/commands.md, "Help, errors and exit codes"): one line on stderr.
        throw new RelayError(
          'EXTENSION_NOT_CONNECTED',
          `No browser is connected. Open the browser you installed comet-relay in (Comet, Chrome, Chromium, Edge or Brave) with the extension enabled; \`${cliCommand('doctor')}\` checks the set-up.`,
        );
      }
      for (const row of rows) {
        const { host } = row;
        process.stdout.write(`${host.profileLabel} (${host.profileId}) — ${host.browser.name} ${host.browser.version}, host pid ${host.pid}\n`);
        if ('error' in row) process.stdout.write(`  not answering: ${row.error}\n`);
        else {
          const source = row.tab?.selectorSource && row.tab.selectorSource !== 'built-in' ? `, from ${row.tab.selectorSource}` : '';
          process.stdout.write(`  Perplexity tab: ${row.tab ? `${row.tab.url} (selector set ${row.tab.selectorSet ?? 'none yet'}${source})` : 'none open'}\n`);
          process.stdout.write(`  MCP clients: ${row.clients.length ? row.clients.map((c) => `${c.name} (${c.transport ?? '?'})`).join(', ') : 'none'}\n`);
        }
      }
      if (failure && code === EXIT_FAILED) {
        throw new RelayError(failure.code, `No browser profile with a host answered (each is listed above, with why); \`${cliCommand('doctor')}\` shows which link is broken.`);
      }
      return code;
    },
  },

  version: {
    summary: 'Print the version of this copy.',
    usage: 'comet-relay version',
    examples: ['comet-relay --version'],
    async run(args) {
      flagsOf('version', args, {});
      process.stdout.write(`${VERSION}\n`);
      return 0;
    },
  },

  host: {
    summary: 'The native messaging host: the browser starts it through the launcher `install` wrote; never run by hand.',
    usage: 'comet-relay host',
    examples: ['comet-relay status'],
    notes: 'Run by hand it would wait for native messaging frames on stdin: `comet-relay status` and `comet-relay doctor` show the running hosts.',
    async run() {
      const { runHostCommand } = await import('./host-command');
      return runHostCommand();
    },
  },
};

/**
 * What each of `config`'s flags is for: one given to a client it does not apply to is refused
 * (exit 2), as `serve` refuses --allow-acting without --public-url, rather than printing an entry
 * that silently lacks what was asked for.
 */
const CONFIG_FLAG_USES: Record<'npx' | 'port' | 'public-url', { for: (client: string) => boolean; about: string }> = {
  npx: { for: (client) => client !== 'http' && client !== 'agent-api', about: 'the clients that start comet-relay themselves (claude-code, claude-desktop, codex, cursor, vscode, windsurf, gemini, opencode)' },
  port: { for: (client) => client === 'http', about: '`config http`, whose entry points at `serve --port N`' },
  'public-url': { for: (client) => client === 'agent-api', about: "`config agent-api`, whose entry names your tunnel's address" },
};

function refuseOtherClientsFlags(client: string, values: Partial<Record<keyof typeof CONFIG_FLAG_USES, unknown>>): void {
  for (const [flag, use] of Object.entries(CONFIG_FLAG_USES) as [keyof typeof CONFIG_FLAG_USES, (typeof CONFIG_FLAG_USES)[keyof typeof CONFIG_FLAG_USES]][]) {
    if (values[flag] === undefined || use.for(client)) continue;
    throw new UsageError(`--${flag} does not apply to \`${spoken(`comet-relay config ${client}`)}\`: it is for ${use.about}. Leave it out.`);
  }
}

/** `config http --port N`: the port serve listens on, which a client must name; 0 (serve's "any free port") names none. */
function configPort(value: string | undefined): number {
  const port = parsePort(value, 7777);
  if (port === 0) {
    throw new UsageError('--port 0 is no port a client can call: it lets serve pick a free one. Give the port serve listens on (its first line says it), e.g. --port 8080.');
  }
  return port;
}

/**
 * The tools `serve` offers. Behind --public-url it is read-only unless --allow-acting: whatever
 * reaches the tunnel with the token (the Agent API runs every call unasked) must not type into the
 * person's Perplexity or drive their browser by default.
 */
async function serveTools(
  values: { tools?: string; 'read-only'?: boolean; 'allow-acting'?: boolean },
  publicUrl: PublicUrl | undefined,
): Promise<{ tools: ToolDefinition[]; readOnly: boolean }> {
  const { selectTools } = await import('../mcp/tools');
  const allow = parseToolList(values.tools);
  if (values['allow-acting'] && !publicUrl) {
    throw new UsageError('--allow-acting only matters with --public-url: on 127.0.0.1 every tool is served unless you pass --read-only.');
  }
  if (values['allow-acting'] && values['read-only']) throw new UsageError('--allow-acting and --read-only contradict each other: pick one.');
  const readOnly = Boolean(values['read-only'] || (publicUrl !== undefined && !values['allow-acting']));
  const tools = asUsage(() => selectTools({ allow, readOnly }));
  if (publicUrl && readOnly && allow?.length) {
    const acting = selectTools({ allow }).filter((tool) => !tools.includes(tool));
    if (acting.length > 0) {
      throw new UsageError(
        `--tools names tools that act on your browser (${acting.map((t) => t.name).join(', ')}), but --public-url serves only reading tools unless you add --allow-acting.`,
      );
    }
  }
  return { tools, readOnly };
}

/** What a public endpoint exposes, and to whom, said on stderr every time it starts. */
function publicWarning(publicUrl: PublicUrl, served: ToolDefinition[], tokenFile: string, port: number): string {
  const tools = served.filter((t) => offeredAt(t, 'public'));
  const reading = tools.filter((t) => toolAccess(t) === 'read');
  const acting = tools.filter((t) => toolAccess(t) !== 'read');
  const named = (list: ToolDefinition[]) => list.map((t) => `${t.name} (${t.title})`).join(', ');
  return [
    '',
    `WARNING: ${publicUrl.mcpUrl} is public. Requests your tunnel forwards to 127.0.0.1:${port} with Host "${publicUrl.host}" are accepted,`,
    `so anyone on the internet who can reach that address and holds the token in ${tokenFile} can use this browser profile's Perplexity.`,
    'The Perplexity Agent API is such a caller: it runs from Perplexity\'s servers and runs every tool call without asking you.',
    `They can read: ${named(reading) || 'nothing'}.`,
    acting.length > 0
      ? `They can also ACT in your browser (--allow-acting): ${named(acting)}.`
      : 'Nothing that acts on your page or browser is served (add --allow-acting to change that, with care).',
    `Stop the tunnel or this process to end the exposure; \`${cliCommand('config agent-api')}\` prints the Agent API entry.`,
    '',
  ].join('\n');
}

/** The global help: every command with what it does and how to call it. */
export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(10)} ${saidInHelp(command.summary)}\n  ${''.padEnd(10)} ${spoken(command.usage)}`);
  return (
    `comet-relay ${VERSION} — use Perplexity in your own browser from any MCP client.\n\nCommands:\n${lines.join('\n')}\n\n` +
    `${spoken('comet-relay help COMMAND')} (or ${spoken('comet-relay COMMAND --help')}) prints one command's options and an example.\n` +
    'Exit codes: 0 done, 1 failed (the message says what to do), 2 not understood (an unknown command, option or argument).\n'
  );
}

/** One command's help: usage, what it does, its options and examples. */
export function commandHelp(name: string): string {
  const command = COMMANDS[name] as Command;
  const options = [...(command.options ?? []), ['-h, --help', 'print this help'] as const];
  const width = Math.max(...options.map(([flag]) => flag.length));
  return [
    `Usage: ${spoken(command.usage)}`,
    '',
    saidInHelp(command.summary),
    ...(command.notes ? ['', saidInHelp(command.notes)] : []),
    '',
    'Options:',
    ...options.map(([flag, about]) => `  ${flag.padEnd(width)}  ${saidInHelp(about)}`),
    '',
    (command.examples?.length ?? 0) > 1 ? 'Examples:' : 'Example:',
    ...(command.examples ?? []).map((line) => `  ${spoken(line)}`),
    '',
  ].join('\n');
}

const isHelpFlag = (arg: string) => arg === '--help' || arg === '-h';

/** The command `name` names, or a usage error that suggests the nearest one. */
function lookUp(name: string, optionSaid = (option: string) => `Unknown option ${option}: an option goes after a command.`): Command {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command) return command;
  // Never `host` (the browser starts it; nobody types it): `help --home` was offered it.
  const known = Object.keys(COMMANDS).filter((n) => n !== 'host');
  const near = didYouMean(name.replace(/^-+/, ''), known);
  // An option where the command goes (`--doctor`) is said as one, with the command it is near.
  if (name.startsWith('-')) throw new UsageError(`${optionSaid(name)}${near} \`${spoken('comet-relay help')}\` lists the commands.`);
  throw new UsageError(`Unknown command "${name}".${near} \`${spoken('comet-relay help')}\` lists the commands.`);
}

/**
 * Runs the subcommand `name` (main.ts hands every command but the host here), help and unknown
 * names included, with the settings read from the environment. Every failure is printed here in
 * the one format, with its exit code (lib/cli/usage.ts).
 */
export async function runCommand(name: string | undefined, args: string[]): Promise<number> {
  // Each run's hints say its own --home, not one an earlier run in this process was given.
  useGivenHome(undefined);
  try {
    // `help` answers --help too (`help --help`, `help -h`, `help help`): what help does is list the commands.
    const topics = name === 'help' ? args.filter((arg) => !isHelpFlag(arg)) : [];
    // Bare `comet-relay` is a question about what it does: the global help, exit 0.
    if (name === undefined || isHelpFlag(name) || (name === 'help' && (topics.length === 0 || (topics.length === 1 && topics[0] === 'help')))) {
      process.stdout.write(usage());
      return EXIT_OK;
    }
    if (name === 'help') {
      const [topic, ...extra] = topics as [string, ...string[]];
      // `help` takes no option at all: `help --home` is not told to put it after a command's name (day-7 review F4).
      lookUp(topic, (option) => `\`${spoken('comet-relay help')}\` takes a command's name (\`${spoken('comet-relay help doctor')}\`, which lists doctor's options), not an option such as ${option}.`);
      if (extra.length > 0) throw new UsageError(`\`${spoken('comet-relay help')}\` takes one command, not "${extra.join(' ')}" too.`);
      process.stdout.write(commandHelp(topic));
      return EXIT_OK;
    }
    const command = lookUp(name);
    const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
    if (own.some(isHelpFlag)) {
      process.stdout.write(commandHelp(name));
      return EXIT_OK;
    }
    const { readSettings } = await import('../config/settings');
    return await command.run(args, readSettings());
  } catch (error) {
    process.stderr.write(formatCliError(error));
    return exitCodeOf(error) === EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
  }
}
