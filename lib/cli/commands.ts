import type { Settings } from '../config/settings';
import type { PublicUrl } from '../mcp/public-url';
import { offeredAt, type ToolDefinition, toolAccess } from '../mcp/tool';
import { RelayError } from '../protocol/errors';
import { EXTENSION_ID } from '../protocol/identity';
import { type LogName, logsDir, publicTokenPath, stateDir, tokenPath } from '../relay/paths';
import { parseFlags, parsePort, parseToolList } from './args';

/*
 * Every command loads what it needs when it runs (`await import`): in the built bundle
 * (dist/commands.js) a module's code runs only once imported, so `comet-relay mcp` never starts the
 * HTTP server's modules, the installer or the doctor, and `install` never builds the MCP SDK's
 * schemas (a short cold start for every command).
 */
/** The subcommands, each a small declarative entry: what it does, how to call it, and its runner. */
export interface Command {
  summary: string;
  usage: string;
  run(args: string[], settings: Settings): Promise<number>;
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
} as const;

/** `selection`: tools and read-only decided by the caller (serve with --public-url), else by the flags. */
async function sessionOptions(
  values: { tools?: string; 'read-only'?: boolean; profile?: string },
  settings: Settings,
  logName: LogName,
  selection?: { tools: ToolDefinition[]; readOnly: boolean },
) {
  const home = stateDir();
  const [{ selectTools }, { createFileLogger }, { browserExecutableCandidates }] = await Promise.all([
    import('../mcp/tools'),
    import('../relay/logger'),
    import('../install/browsers'),
  ]);
  return {
    home,
    settings: { ...settings, COMET_RELAY_PROFILE: values.profile ?? settings.COMET_RELAY_PROFILE },
    tools: selection?.tools ?? selectTools({ allow: parseToolList(values.tools), readOnly: values['read-only'] }),
    // The gateway refuses acting calls at run time too (lib/protocol/access.ts), whatever a tool declares.
    readOnly: selection?.readOnly ?? Boolean(values['read-only']),
    logger: createFileLogger({ dir: logsDir(home), name: logName }),
    browserCandidates: () => browserExecutableCandidates('comet'),
  };
}

export const COMMANDS: Record<string, Command> = {
  mcp: {
    summary: 'Serve MCP on stdin/stdout (for Claude Code, Claude Desktop, Codex, Cursor, VS Code, Windsurf).',
    usage: 'comet-relay mcp [--tools a,b] [--read-only] [--profile ID|LABEL]',
    async run(args, settings) {
      const { values } = parseFlags('mcp', args, toolFlags);
      const { runStdio } = await import('../mcp/stdio');
      await runStdio(await sessionOptions(values, settings, 'mcp'));
      return 0;
    },
  },

  serve: {
    summary: 'Serve MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp (bearer token required); --public-url for a tunnel (read-only unless --allow-acting).',
    usage: 'comet-relay serve [--port 7777] [--tools a,b] [--read-only] [--profile ID|LABEL] [--public-url https://NAME [--allow-acting]]',
    async run(args, settings) {
      const { values } = parseFlags('serve', args, { ...toolFlags, port: { type: 'string' }, 'public-url': { type: 'string' }, 'allow-acting': { type: 'boolean' } });
      const [{ parsePublicUrl }, { startHttpServer }, { ensureToken }] = await Promise.all([import('../mcp/public-url'), import('../mcp/http'), import('../install/token')]);
      const publicUrl = values['public-url'] === undefined ? undefined : parsePublicUrl(values['public-url']);
      const options = await sessionOptions(values, settings, 'serve', await serveTools(values, publicUrl));
      const token = ensureToken(options.home);
      // The public address takes only its own token, made (once) for it.
      const publicToken = publicUrl ? ensureToken(options.home, { kind: 'public' }) : undefined;
      const server = await startHttpServer({ ...options, port: parsePort(values.port, 7777), token, publicUrl, publicToken });
      process.stderr.write(
        `comet-relay serving MCP at ${server.url}${publicUrl ? ` and, through your tunnel, at ${publicUrl.mcpUrl}` : ''}\n` +
          `Send "Authorization: Bearer <token>" (or the raw token); the token is in ${tokenPath(options.home)} (\`npx comet-relay token\` prints it).\n` +
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
    async run(args) {
      const { values } = parseFlags('install', args, setupFlags);
      const { defaultCliPath, install, packageCopy, parseBrowsers, volatileCopyNote } = await import('../install');
      const report = await install({
        browsers: parseBrowsers(values.browser ?? 'all'),
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
    async run(args) {
      const { values } = parseFlags('extension', args, { path: { type: 'boolean' } });
      const { checkExtensionFolder, packageCopy, volatileCopyNote } = await import('../install');
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
          '  4. Register the native host if you have not: npx comet-relay install   (then reload the extension).',
          '  5. Click the comet-relay toolbar icon: the side panel says Connected. If not: npx comet-relay doctor',
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
    async run(args) {
      const { values } = parseFlags('uninstall', args, { ...setupFlags, purge: { type: 'boolean' } });
      const { parseBrowsers, uninstall } = await import('../install');
      const report = await uninstall({
        browsers: parseBrowsers(values.browser ?? 'all'),
        userDataDir: values['user-data-dir'],
        home: values.home,
        purge: values.purge,
      });
      process.stdout.write(`${report.lines.join('\n')}\n`);
      return report.ok ? 0 : 1;
    },
  },

  doctor: {
    summary: 'Check every link (manifest, launcher, node, host, extension, Perplexity tab) and say how to fix what is broken.',
    usage: 'comet-relay doctor [--page] [--browser B|all] [--user-data-dir DIR] [--home DIR]',
    async run(args, settings) {
      const { values } = parseFlags('doctor', args, { ...setupFlags, page: { type: 'boolean' } });
      const [{ defaultCliPath, doctor, formatDoctor, formatPageReport, parseBrowsers, resolveState }, { RelayClient }] = await Promise.all([
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
          browsers: parseBrowsers(values.browser ?? 'all'),
          userDataDir: values['user-data-dir'],
          home: values.home,
          cliPath: defaultCliPath(),
          queryStatus: () => probe.call('browser.status', {}, { timeoutMs: 5000 }),
        });
        process.stdout.write(`${formatDoctor(report)}\n`);
        if (!values.page) return report.exitCode;
        // --page: every probe of the selector set in use, on the live Perplexity tab (read-only).
        process.stdout.write('\n');
        try {
          const page = formatPageReport(await probe.call('page.diagnose', {}, { timeoutMs: 10_000 }));
          process.stdout.write(`${page.text}\n`);
          return page.ok ? report.exitCode : 1;
        } catch (error) {
          const e = RelayError.from(error);
          process.stdout.write(`✘ page probes — could not ask the Perplexity tab: [${e.code}] ${e.message}\n`);
          return 1;
        }
      } finally {
        probe.close();
      }
    },
  },

  config: {
    summary: 'Print the ready-to-paste MCP configuration for a client, or the Perplexity Agent API tool entry (agent-api).',
    usage: 'comet-relay config claude-code|claude-desktop|codex|cursor|vscode|windsurf|gemini|opencode|http [--npx] [--home DIR] | agent-api [--public-url https://NAME]',
    async run(args) {
      const { values, positionals } = parseFlags('config', args, { npx: { type: 'boolean' }, home: { type: 'string' }, port: { type: 'string' }, 'public-url': { type: 'string' } });
      const client = positionals[0];
      if (!client) throw new RelayError('CONFIG_ERROR', 'Name the client: comet-relay config claude-code|claude-desktop|codex|cursor|vscode|windsurf|gemini|opencode|http|agent-api.');
      const [{ agentApiConfig, clientConfig, defaultCliPath, readToken, resolveState }, { selectTools }, { parsePublicUrl }] = await Promise.all([
        import('../install'),
        import('../mcp/tools'),
        import('../mcp/public-url'),
      ]);
      if (client === 'agent-api') {
        const publicUrl = values['public-url'] === undefined ? undefined : parsePublicUrl(values['public-url']);
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
          httpUrl: `http://127.0.0.1:${parsePort(values.port, 7777)}/mcp`,
          token: client === 'http' ? readToken(resolveState({ home: values.home }).stateDir) : undefined,
        });
      } catch (error) {
        throw new RelayError('CONFIG_ERROR', `${(error as Error).message} For the Perplexity Agent API: comet-relay config agent-api.`);
      }
      process.stdout.write(`${config.text}\n`);
      return 0;
    },
  },

  capture: {
    summary: 'Save the Perplexity tab as a sanitized HTML fixture for a bug report (texts replaced, URLs cut to their host).',
    usage: 'comet-relay capture [--out FILE] [--profile ID|LABEL]',
    async run(args, settings) {
      const { values } = parseFlags('capture', args, { out: { type: 'string' }, profile: { type: 'string' } });
      const [{ runCapture }, { RelayClient }] = await Promise.all([import('./capture-command'), import('../relay/client')]);
      const client = new RelayClient({
        home: stateDir(),
        profile: values.profile ?? settings.COMET_RELAY_PROFILE,
        client: { name: 'comet-relay capture' },
        transport: 'stdio',
        hostWaitMs: settings.COMET_HOST_WAIT,
      });
      try {
        return await runCapture(client, values.out, { out: (text) => process.stdout.write(text) });
      } finally {
        client.close();
      }
    },
  },

  selectors: {
    summary: 'Add, list, remove or show the selector sets that teach comet-relay a changed Perplexity page (no rebuild, no reload).',
    usage: 'comet-relay selectors add FILE | list [--json] | remove NAME | show NAME [--home DIR]',
    async run(args) {
      const { values, positionals } = parseFlags('selectors', args, { home: { type: 'string' }, json: { type: 'boolean' } });
      const [{ runSelectors }, { resolveState }] = await Promise.all([import('./selectors-command'), import('../install')]);
      const home = resolveState({ home: values.home }).stateDir;
      return runSelectors(home, positionals, { json: values.json }, { out: (text) => process.stdout.write(text) });
    },
  },

  token: {
    summary:
      'Print the bearer token `serve` requires (created if missing); --public the one only `serve --public-url`\'s public address takes; --rotate replaces it. Only the token goes to stdout.',
    usage: 'comet-relay token [--public] [--rotate] [--home DIR]',
    async run(args) {
      const { values } = parseFlags('token', args, { home: { type: 'string' }, public: { type: 'boolean' }, rotate: { type: 'boolean' } });
      const { ensureToken, rotateToken, resolveState } = await import('../install');
      const home = resolveState({ home: values.home }).stateDir;
      const kind = values.public ? 'public' : 'local';
      process.stdout.write(`${values.rotate ? rotateToken(home, { kind }) : ensureToken(home, { kind })}\n`);
      if (values.rotate) {
        const who = kind === 'public' ? 'what calls through the public address (the Agent API' : 'local HTTP clients (`comet-relay config http`';
        process.stderr.write(`comet-relay: the ${kind} token was replaced; give ${who}) the new one. A running serve keeps the old one until it restarts.\n`);
      }
      return 0;
    },
  },

  status: {
    summary: 'Show the connected browser profiles, their MCP clients and their Perplexity tab.',
    usage: 'comet-relay status [--json]',
    async run(args) {
      const { values } = parseFlags('status', args, { json: { type: 'boolean' } });
      const [{ listHosts }, { RelayClient }] = await Promise.all([import('../relay/discovery'), import('../relay/client')]);
      const home = stateDir();
      const hosts = listHosts(home);
      const rows = [];
      for (const host of hosts) {
        const client = new RelayClient({ home, profile: host.profileId, client: { name: 'comet-relay status' }, transport: 'stdio', hostWaitMs: 0 });
        try {
          const [hostStatus, browser] = await Promise.all([
            client.hostStatus({ timeoutMs: 3000 }),
            client.call('browser.status', {}, { timeoutMs: 3000 }),
          ]);
          rows.push({ host, clients: hostStatus.clients.filter((c) => c.name !== 'comet-relay status'), tab: browser.perplexityTab });
        } catch (error) {
          rows.push({ host, error: RelayError.from(error).message });
        } finally {
          client.close();
        }
      }
      if (values.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return 0;
      }
      if (rows.length === 0) {
        process.stdout.write('No browser is connected. Open Comet or Chrome with the comet-relay extension; `npx comet-relay doctor` checks the set-up.\n');
        return 1;
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
      return 0;
    },
  },
};

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
    throw new RelayError('CONFIG_ERROR', '--allow-acting only matters with --public-url: on 127.0.0.1 every tool is served unless you pass --read-only.');
  }
  if (values['allow-acting'] && values['read-only']) throw new RelayError('CONFIG_ERROR', '--allow-acting and --read-only contradict each other: pick one.');
  const readOnly = Boolean(values['read-only'] || (publicUrl !== undefined && !values['allow-acting']));
  const tools = selectTools({ allow, readOnly });
  if (publicUrl && readOnly && allow?.length) {
    const acting = selectTools({ allow }).filter((tool) => !tools.includes(tool));
    if (acting.length > 0) {
      throw new RelayError(
        'CONFIG_ERROR',
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
    'Stop the tunnel or this process to end the exposure; `npx comet-relay config agent-api` prints the Agent API entry.',
    '',
  ].join('\n');
}

export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}\n  ${''.padEnd(10)} ${command.usage}`);
  return `comet-relay — use Perplexity in your own browser from any MCP client.\n\nCommands:\n${lines.join('\n')}\n\nThe browser starts \`comet-relay host\` itself through native messaging.\n`;
}

/**
 * Runs the subcommand `name` (main.ts hands every command but the host here): help and unknown
 * names included, with the settings read from the environment.
 */
export async function runCommand(name: string | undefined, args: string[]): Promise<number> {
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name === undefined ? 1 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`comet-relay: unknown command "${name}".\n\n${usage()}`);
    return 2;
  }
  const { readSettings } = await import('../config/settings');
  return command.run(args, readSettings());
}
