import { defaultCliPath, resolveSystem, type SystemOptions } from './system';
import { powerShellWord } from './policy/privileged-command';
import { cliCommand, quoteArg } from '../relay/invocation';

/**
 * Ready-to-paste MCP client configurations for `comet-relay mcp` (stdio) and `comet-relay serve`
 * (Streamable HTTP). Nothing here writes a client's files: users keep other servers in them, so
 * we print a snippet and say where it goes.
 */

export const CLIENTS = ['claude-code', 'claude-desktop', 'codex', 'cursor', 'vscode', 'windsurf', 'gemini', 'opencode', 'http'] as const;
export type McpClientName = (typeof CLIENTS)[number];

export const SERVER_NAME = 'comet-relay';
export const DEFAULT_HTTP_URL = 'http://127.0.0.1:7777/mcp';
/** What stands for the token when none is given, with the command that prints it. */
export const tokenPlaceholder = (): string => `<TOKEN: run ${cliCommand('token')}>`;

/**
 * How long a client should let one tool call run. Thread calls (call_perplexity_computer, …) hold
 * up to two minutes (COMET_THREAD_HOLD_MS) and may wait for the person's answer to a question
 * asked inside the call; comet_wait waits two minutes unless its `timeout` asks for more (up to an
 * hour). Ten minutes covers the first and comet_wait's default; a longer wait needs a longer setting.
 */
export const TOOL_TIMEOUT_MS = 600_000;

/**
 * comet_wait's `timeout`, as the tool defines it (lib/mcp/tools/comet.ts, which this layer may not import;
 * tests/unit/client-config.test.ts holds the two equal): its default and the most it takes, in ms.
 */
export const COMET_WAIT_TIMEOUT = { defaultMs: 120_000, maxMs: 3_600_000 } as const;

const minutes = (ms: number) => ms / 60_000;

/**
 * What each client calls its tool-call timeout (looked up 2026-12-01 in the clients' docs and
 * issue trackers). Claude Code reads MCP_TOOL_TIMEOUT (ms) from its environment or from the "env"
 * of ~/.claude/settings.json; Codex reads tool_timeout_sec per server; Gemini CLI reads `timeout`
 * (ms) per server in settings.json. opencode reads `timeout` (ms) per server too: read in the
 * opencode 1.18.33 binary on 2026-12-01, it passes that value to every tools/call (restarted by each
 * progress notification) and otherwise leaves the MCP SDK's 60 s. Claude Desktop, Cursor,
 * VS Code and Windsurf have no such setting: they rely on the progress notifications a held call
 * sends (at least every COMET_THREAD_PROGRESS_MS) and, when they give up anyway, on read_thread.
 */
export const TOOL_TIMEOUT_SETTING: Record<McpClientName, string | null> = {
  'claude-code': 'MCP_TOOL_TIMEOUT',
  'claude-desktop': null,
  codex: 'tool_timeout_sec',
  cursor: null,
  vscode: null,
  windsurf: null,
  gemini: 'timeout',
  opencode: 'timeout',
  http: null,
};

function noTimeoutSetting(name: string): string {
  return (
    ` ${name} has no setting for how long a tool call may run: a held call_perplexity_computer returns within two minutes (timeout while the task keeps running) ` +
    'and sends progress meanwhile; if the client gives up first, call read_thread with the thread_id from the first progress message.'
  );
}

export interface StdioCommand {
  command: string;
  args: string[];
}

export interface ClientConfigOptions extends SystemOptions {
  /** The stdio command. Default: absolute node + absolute `dist/cli.js` + `mcp` (see `stdioCommand`). */
  command?: string;
  /** Arguments for `command`; required with `command`. */
  args?: string[];
  /** Use `npx comet-relay mcp` instead of absolute paths (needs npx on the client's PATH). */
  npx?: boolean;
  /** Node for the default command. Default `process.execPath`. */
  nodePath?: string;
  /** CLI for the default command. Default: this bundle's `dist/cli.js`. */
  cliPath?: string;
  /** COMET_RELAY_HOME the client must pass to `comet-relay mcp` (from `--home`), put in the config's env. */
  home?: string;
  /** The `serve` endpoint. Default `http://127.0.0.1:7777/mcp`. */
  httpUrl?: string;
  /** The bearer token for `http`. Default: a placeholder telling how to get it. */
  token?: string;
}

export interface ConfigSnippet {
  /** What this snippet is, e.g. "Command line" or "Project file .mcp.json". */
  label: string;
  format: 'shell' | 'json' | 'toml';
  content: string;
  /** Where it goes, when it is a file. */
  file?: string;
}

export interface ClientConfig {
  client: McpClientName;
  snippets: ConfigSnippet[];
  /** One line: where the text goes and what to do next. */
  hint: string;
  /** Every snippet with its label, plus the hint: ready to print. */
  text: string;
}

export function isClientName(value: string): value is McpClientName {
  return (CLIENTS as readonly string[]).includes(value);
}

/**
 * The command an MCP client should start. By default the absolute node and the absolute CLI:
 * GUI-launched clients (Claude Desktop, Cursor…) have a minimal PATH where `npx` may be missing.
 */
export function stdioCommand(options: Pick<ClientConfigOptions, 'npx' | 'nodePath' | 'cliPath' | 'platform'> = {}): StdioCommand {
  const sys = resolveSystem({ platform: options.platform });
  if (options.npx) {
    // On Windows npx is a .cmd script, which clients can only start through cmd.
    return sys.platform === 'win32' ? { command: 'cmd', args: ['/c', 'npx', 'comet-relay', 'mcp'] } : { command: 'npx', args: ['comet-relay', 'mcp'] };
  }
  return { command: options.nodePath ?? process.execPath, args: [sys.path.resolve(options.cliPath ?? defaultCliPath()), 'mcp'] };
}

/** Builds the configuration for one client; throws naming the valid clients for an unknown one. */
export function clientConfig(client: string, options: ClientConfigOptions = {}): ClientConfig {
  if (!isClientName(client)) {
    throw new Error(`Unknown MCP client "${client}". Valid clients: ${CLIENTS.join(', ')}.`);
  }
  const sys = resolveSystem(options);
  if (options.command !== undefined && options.args === undefined) options = { ...options, args: [] };
  const { command, args } = options.command !== undefined ? { command: options.command, args: options.args ?? [] } : stdioCommand({ ...options, platform: sys.platform });
  // Absolute: a GUI client starts the server from a working directory of its own choosing.
  const env = options.home ? { COMET_RELAY_HOME: sys.path.resolve(options.home) } : undefined;
  const entry = { command, args, ...(env ? { env } : {}) };
  const mcpServers = (value: object) => json({ mcpServers: { [SERVER_NAME]: value } });
  const q = (value: string) => quoteArg(value, sys.platform);
  const commandLine = [command, ...args].map(q).join(' ');
  const npxNote = options.npx ? ' npx must be on the PATH the client starts with; drop --npx to use absolute paths instead.' : '';
  const home = (unix: string, windows: string) => (sys.platform === 'win32' ? windows : unix);

  let snippets: ConfigSnippet[];
  let hint: string;
  switch (client) {
    case 'claude-code': {
      const envFlags = env ? ` -e ${q(`COMET_RELAY_HOME=${env.COMET_RELAY_HOME}`)}` : '';
      snippets = [
        { label: 'Command line', format: 'shell', content: `claude mcp add ${SERVER_NAME}${envFlags} -- ${commandLine}` },
        { label: 'Or the project file .mcp.json', format: 'json', content: mcpServers(entry), file: '.mcp.json' },
        {
          label: 'Allow long tool calls: merge into ~/.claude/settings.json',
          format: 'json',
          content: json({ env: { MCP_TOOL_TIMEOUT: String(TOOL_TIMEOUT_MS) } }),
          file: '~/.claude/settings.json',
        },
      ];
      hint =
        `Run the command in a terminal (add --scope user before -- to use it in every project), or merge the JSON into .mcp.json at your project's root. ` +
        `Merge the "env" entry into ~/.claude/settings.json (or export MCP_TOOL_TIMEOUT=${TOOL_TIMEOUT_MS}) so Claude Code lets a Perplexity task run ten minutes.${npxNote}`;
      break;
    }
    case 'claude-desktop': {
      const file =
        sys.platform === 'darwin'
          ? '~/Library/Application Support/Claude/claude_desktop_config.json'
          : sys.platform === 'win32'
            ? '%APPDATA%\\Claude\\claude_desktop_config.json'
            : '~/.config/Claude/claude_desktop_config.json';
      snippets = [{ label: `File ${file}`, format: 'json', content: mcpServers(entry), file }];
      hint = `Merge the "${SERVER_NAME}" entry into "mcpServers" of ${file} (Settings → Developer → Edit Config), then quit and reopen Claude Desktop.${npxNote}${noTimeoutSetting('Claude Desktop')}`;
      break;
    }
    case 'codex': {
      const file = home('~/.codex/config.toml', '%USERPROFILE%\\.codex\\config.toml');
      const lines = [
        `[mcp_servers.${SERVER_NAME}]`,
        `command = ${tomlString(command)}`,
        `args = [${args.map(tomlString).join(', ')}]`,
        `# Thread calls hold up to 2 minutes and may wait for your answer; comet_wait waits ${minutes(COMET_WAIT_TIMEOUT.defaultMs)} minutes by default (its timeout, up to ${minutes(COMET_WAIT_TIMEOUT.maxMs)}).`,
        `# A comet_wait longer than ${minutes(TOOL_TIMEOUT_MS)} minutes needs a larger tool_timeout_sec.`,
        `tool_timeout_sec = ${TOOL_TIMEOUT_MS / 1000}`,
      ];
      if (env) lines.push('', `[mcp_servers.${SERVER_NAME}.env]`, `COMET_RELAY_HOME = ${tomlString(env.COMET_RELAY_HOME)}`);
      const envFlags = env ? ` --env ${q(`COMET_RELAY_HOME=${env.COMET_RELAY_HOME}`)}` : '';
      snippets = [
        { label: `File ${file}`, format: 'toml', content: `${lines.join('\n')}\n`, file },
        { label: 'Or the command line', format: 'shell', content: `codex mcp add ${SERVER_NAME}${envFlags} -- ${commandLine}` },
      ];
      hint = `Append the TOML to ${file} (or run the command), then start Codex and type /mcp to see the server.${npxNote}`;
      break;
    }
    case 'cursor': {
      snippets = [{ label: 'File .cursor/mcp.json (this project) or ~/.cursor/mcp.json (every project)', format: 'json', content: mcpServers(entry), file: '.cursor/mcp.json' }];
      hint = `Merge into .cursor/mcp.json in your project, or ~/.cursor/mcp.json for all projects; Cursor lists the server under Settings → MCP.${npxNote}${noTimeoutSetting('Cursor')}`;
      break;
    }
    case 'vscode': {
      const vsEntry = { type: 'stdio', ...entry };
      const added = JSON.stringify({ name: SERVER_NAME, ...vsEntry });
      const file: ConfigSnippet = { label: 'File .vscode/mcp.json', format: 'json', content: json({ servers: { [SERVER_NAME]: vsEntry } }), file: '.vscode/mcp.json' };
      const merge = 'Merge into .vscode/mcp.json in your workspace (note: "servers", not "mcpServers")';
      const rest = `${npxNote}${noTimeoutSetting('VS Code')}`;
      const unsafe = sys.platform === 'win32' ? [command, ...args, env?.COMET_RELAY_HOME ?? ''].find((value) => CMD_SPECIAL.test(value)) : undefined;
      if (unsafe !== undefined) {
        snippets = [file];
        const why = `${unsafe} holds ${CMD_SPECIAL.exec(unsafe)?.[0]}, which cmd.exe (through which \`code\` runs on Windows) would take as its own`;
        hint = `${merge}; then start it from the MCP view. There is no \`code --add-mcp\` line to paste here: ${why}.${rest}`;
        break;
      }
      const line = sys.platform === 'win32' ? `code --add-mcp ${powerShellArgForCode(added)}` : `code --add-mcp ${q(added)}`;
      snippets = [file, { label: sys.platform === 'win32' ? 'Or the command line (PowerShell)' : 'Or the command line', format: 'shell', content: line }];
      hint = `${merge}, or run the command to add it to your user profile; then start it from the MCP view.${rest}`;
      break;
    }
    case 'windsurf': {
      const file = home('~/.codeium/windsurf/mcp_config.json', '%USERPROFILE%\\.codeium\\windsurf\\mcp_config.json');
      snippets = [{ label: `File ${file}`, format: 'json', content: mcpServers(entry), file }];
      hint = `Merge into ${file} (Windsurf Settings → Cascade → MCP servers → View raw config), then refresh the server list.${npxNote}${noTimeoutSetting('Windsurf')}`;
      break;
    }
    case 'gemini': {
      const file = home('~/.gemini/settings.json', '%USERPROFILE%\\.gemini\\settings.json');
      const envFlags = env ? ` -e ${q(`COMET_RELAY_HOME=${env.COMET_RELAY_HOME}`)}` : '';
      snippets = [
        { label: `File ${file} (every project) or .gemini/settings.json (this one)`, format: 'json', content: mcpServers({ ...entry, timeout: TOOL_TIMEOUT_MS }), file },
        { label: 'Or the command line', format: 'shell', content: `gemini mcp add --scope user --timeout ${TOOL_TIMEOUT_MS}${envFlags} ${SERVER_NAME} ${commandLine}` },
      ];
      hint =
        `Merge the "${SERVER_NAME}" entry into "mcpServers" of ${file} (or run the command), then check it with: gemini mcp list. "timeout" lets a Perplexity task run ten minutes. ` +
        `Gemini CLI starts MCP servers only in a folder you trust (it asks, or /permissions).${npxNote}`;
      break;
    }
    case 'opencode': {
      const file = home('~/.config/opencode/opencode.json', '%USERPROFILE%\\.config\\opencode\\opencode.json');
      const local = { type: 'local', command: [command, ...args], enabled: true, ...(env ? { environment: env } : {}), timeout: TOOL_TIMEOUT_MS };
      snippets = [{ label: `File opencode.json (this project) or ${file} (every project)`, format: 'json', content: json({ $schema: 'https://opencode.ai/config.json', mcp: { [SERVER_NAME]: local } }), file: 'opencode.json' }];
      hint = `Merge the "${SERVER_NAME}" entry into "mcp" of opencode.json at your project's root or of ${file}, then check it with: opencode mcp list. "timeout" lets a Perplexity task run ten minutes.${npxNote}`;
      break;
    }
    case 'http': {
      const url = options.httpUrl ?? DEFAULT_HTTP_URL;
      const token = options.token ?? tokenPlaceholder();
      const httpEntry = { type: 'http', url, headers: { Authorization: `Bearer ${token}` } };
      snippets = [
        { label: 'Generic Streamable HTTP entry (Claude Code .mcp.json, Cursor, Windsurf, …)', format: 'json', content: mcpServers(httpEntry) },
        { label: 'Claude Code command line', format: 'shell', content: `claude mcp add --transport http ${SERVER_NAME} ${q(url)} --header ${q(`Authorization: Bearer ${token}`)}` },
      ];
      hint =
        `Start the endpoint with: ${cliCommand('serve')} (it listens on 127.0.0.1 only and requires this token; keep it secret). ` +
        `For the Perplexity Agent API, which calls from Perplexity's servers through a tunnel, run: ${cliCommand('config agent-api')}. ` +
        `Claude Code over HTTP: set MCP_TOOL_TIMEOUT=${TOOL_TIMEOUT_MS} (its environment, or "env" in ~/.claude/settings.json) so long tool calls are not cut off.`;
      break;
    }
  }

  const text = [...snippets.flatMap((s) => [`# ${s.label}`, s.content.trimEnd(), '']), hint].join('\n');
  return { client, snippets, hint, text };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A TOML basic string: escapes backslash, quote and every control character (including DEL). */
export function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * What cmd.exe acts on in a command line. It takes every double quote, an escaped \" too, as opening or
 * closing a quoted part, so any of these may fall outside one; % it reads inside one as well.
 */
const CMD_SPECIAL = /[%&^|<>]/;

/**
 * The JSON `code --add-mcp` takes, as one word pasted into PowerShell (Windows' default shell, where
 * the POSIX line's \" is no escape). `code` is code.cmd: to a batch file PowerShell (5.1, and 7.3+
 * too) passes an argument's double quotes on as they are, and Code.exe, splitting its command line by
 * the C runtime's rules, would drop them. So each is escaped for those rules (the backslashes before
 * it doubled, then \"), and the whole is single-quoted for PowerShell.
 */
function powerShellArgForCode(value: string): string {
  return powerShellWord(value.replace(/(\\*)"/g, '$1$1\\"'));
}

