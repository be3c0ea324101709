import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CLIENTS, clientConfig, COMET_WAIT_TIMEOUT, DEFAULT_HTTP_URL, stdioCommand, tokenPlaceholder, TOOL_TIMEOUT_SETTING, tomlString } from '../../lib/install/client-config';
import { cometTools } from '../../lib/mcp/tools/comet';
import { cliCommand } from '../../lib/relay/invocation';

const base = { nodePath: '/usr/bin/node', cliPath: '/opt/comet relay/dist/cli.js', platform: 'linux' as const };
const json = (client: string, index = 0, options: Parameters<typeof clientConfig>[1] = base) => {
  const snippet = clientConfig(client, options).snippets.filter((s) => s.format === 'json')[index];
  if (!snippet) throw new Error(`no json snippet ${index} for ${client}`);
  return JSON.parse(snippet.content);
};

/** Just enough TOML for our snippet: [tables], key = "string" | [strings] | integer, comments. */
function parseTomlish(text: string): Record<string, Record<string, unknown>> {
  const tables: Record<string, Record<string, unknown>> = {};
  let current: Record<string, unknown> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const table = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (table) {
      current = {};
      tables[table[1] as string] = current;
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+) = (.+)$/.exec(line);
    if (!kv || !current) throw new Error(`not TOML-ish: ${line}`);
    current[kv[1] as string] = JSON.parse(kv[2] as string);
  }
  return tables;
}

describe('client configs', () => {
  it('default stdio command is absolute node + absolute CLI (GUI clients have a minimal PATH)', () => {
    expect(stdioCommand(base)).toEqual({ command: '/usr/bin/node', args: ['/opt/comet relay/dist/cli.js', 'mcp'] });
    expect(stdioCommand({ ...base, npx: true })).toEqual({ command: 'npx', args: ['comet-relay', 'mcp'] });
    expect(stdioCommand({ ...base, npx: true, platform: 'win32' })).toEqual({ command: 'cmd', args: ['/c', 'npx', 'comet-relay', 'mcp'] });
  });

  it('every client parses as JSON / TOML and carries a hint', () => {
    for (const client of CLIENTS) {
      const config = clientConfig(client, base);
      expect(config.hint.length).toBeGreaterThan(20);
      expect(config.text).toContain(config.hint);
      for (const snippet of config.snippets) {
        if (snippet.format === 'json') expect(() => JSON.parse(snippet.content)).not.toThrow();
        if (snippet.format === 'toml') expect(() => parseTomlish(snippet.content)).not.toThrow();
        expect(config.text).toContain(snippet.content.trimEnd());
      }
    }
  });

  it('claude-code: command line and .mcp.json', () => {
    const config = clientConfig('claude-code', base);
    expect(config.snippets[0]?.content).toBe("claude mcp add comet-relay -- /usr/bin/node '/opt/comet relay/dist/cli.js' mcp");
    expect(json('claude-code')).toEqual({ mcpServers: { 'comet-relay': { command: '/usr/bin/node', args: ['/opt/comet relay/dist/cli.js', 'mcp'] } } });
    expect(clientConfig('claude-code', { ...base, npx: true }).snippets[0]?.content).toBe('claude mcp add comet-relay -- npx comet-relay mcp');
  });

  it("sets each client's tool-call timeout where it has one, and says so where it has none", () => {
    expect(json('claude-code', 1)).toEqual({ env: { MCP_TOOL_TIMEOUT: '600000' } });
    expect(clientConfig('claude-code', base).snippets[2]?.file).toBe('~/.claude/settings.json');
    expect(clientConfig('codex', base).snippets[0]?.content).toContain('tool_timeout_sec = 600');
    for (const client of CLIENTS) {
      const hint = clientConfig(client, base).hint;
      if (TOOL_TIMEOUT_SETTING[client]) expect(clientConfig(client, base).text, client).toContain(TOOL_TIMEOUT_SETTING[client] as string);
      else if (client !== 'http') expect(hint, client).toMatch(/has no setting for how long a tool call may run: .* read_thread/);
    }
    expect(clientConfig('http', base).hint).toContain('MCP_TOOL_TIMEOUT=600000');
  });

  it("gemini: settings.json's mcpServers entry with its per-server timeout (ms), and the command line", () => {
    expect(json('gemini')).toEqual({ mcpServers: { 'comet-relay': { command: '/usr/bin/node', args: ['/opt/comet relay/dist/cli.js', 'mcp'], timeout: 600_000 } } });
    const config = clientConfig('gemini', { ...base, home: '/h' });
    expect(config.snippets[0]?.file).toBe('~/.gemini/settings.json');
    expect(JSON.parse(config.snippets[0]?.content ?? '')).toMatchObject({ mcpServers: { 'comet-relay': { env: { COMET_RELAY_HOME: '/h' } } } });
    expect(config.snippets[1]?.content).toBe("gemini mcp add --scope user --timeout 600000 -e COMET_RELAY_HOME=/h comet-relay /usr/bin/node '/opt/comet relay/dist/cli.js' mcp");
    expect(config.hint).toContain('gemini mcp list');
  });

  it("opencode: opencode.json's mcp entry, a local server with the command as one array and its per-server timeout (ms)", () => {
    expect(json('opencode')).toEqual({
      $schema: 'https://opencode.ai/config.json',
      mcp: { 'comet-relay': { type: 'local', command: ['/usr/bin/node', '/opt/comet relay/dist/cli.js', 'mcp'], enabled: true, timeout: 600_000 } },
    });
    expect(json('opencode', 0, { ...base, home: '/h' }).mcp['comet-relay'].environment).toEqual({ COMET_RELAY_HOME: '/h' });
    expect(clientConfig('opencode', base).hint).toContain('opencode mcp list');
  });

  it('claude-desktop, cursor, windsurf: mcpServers entries, with the file per OS', () => {
    for (const client of ['claude-desktop', 'cursor', 'windsurf']) {
      expect(json(client).mcpServers['comet-relay']).toEqual({ command: '/usr/bin/node', args: ['/opt/comet relay/dist/cli.js', 'mcp'] });
    }
    expect(clientConfig('claude-desktop', { ...base, platform: 'darwin' }).hint).toContain('~/Library/Application Support/Claude/claude_desktop_config.json');
    expect(clientConfig('claude-desktop', { ...base, platform: 'win32', cliPath: 'C:\\x\\cli.js' }).hint).toContain('%APPDATA%\\Claude\\claude_desktop_config.json');
    expect(clientConfig('windsurf', base).snippets[0]?.file).toBe('~/.codeium/windsurf/mcp_config.json');
    expect(clientConfig('cursor', base).snippets[0]?.file).toBe('.cursor/mcp.json');
  });

  it('vscode: "servers" with type stdio', () => {
    expect(json('vscode')).toEqual({ servers: { 'comet-relay': { type: 'stdio', command: '/usr/bin/node', args: ['/opt/comet relay/dist/cli.js', 'mcp'] } } });
    expect(clientConfig('vscode', base).snippets[1]?.content.startsWith("code --add-mcp '{\"name\":\"comet-relay\"")).toBe(true);
  });

  it('codex: [mcp_servers.comet-relay] TOML, env table for --home', () => {
    const config = clientConfig('codex', { ...base, home: '/tmp/t "h"' });
    const toml = parseTomlish(config.snippets[0]?.content as string);
    expect(toml['mcp_servers.comet-relay']).toEqual({ command: '/usr/bin/node', args: ['/opt/comet relay/dist/cli.js', 'mcp'], tool_timeout_sec: 600 });
    expect(toml['mcp_servers.comet-relay.env']).toEqual({ COMET_RELAY_HOME: '/tmp/t "h"' });
    expect(config.snippets[1]?.content).toBe("codex mcp add comet-relay --env 'COMET_RELAY_HOME=/tmp/t \"h\"' -- /usr/bin/node '/opt/comet relay/dist/cli.js' mcp");
    expect(config.snippets[0]?.file).toBe('~/.codex/config.toml');
  });

  it('--home adds COMET_RELAY_HOME to every stdio client', () => {
    expect(json('cursor', 0, { ...base, home: '/tmp/h' }).mcpServers['comet-relay'].env).toEqual({ COMET_RELAY_HOME: '/tmp/h' });
    expect(json('vscode', 0, { ...base, home: '/tmp/h' }).servers['comet-relay'].env).toEqual({ COMET_RELAY_HOME: '/tmp/h' });
    expect(clientConfig('claude-code', { ...base, home: '/tmp/h' }).snippets[0]?.content).toContain('-e COMET_RELAY_HOME=/tmp/h --');
  });

  it('http: Streamable HTTP entry with the bearer header, and a pointer to the Agent API recipe', () => {
    const entry = json('http', 0, { ...base, token: 'tok_123' }).mcpServers['comet-relay'];
    expect(entry).toEqual({ type: 'http', url: DEFAULT_HTTP_URL, headers: { Authorization: 'Bearer tok_123' } });
    const config = clientConfig('http', { ...base, token: 'tok_123', httpUrl: 'http://127.0.0.1:9000/mcp' });
    expect(config.snippets[1]?.content).toBe("claude mcp add --transport http comet-relay http://127.0.0.1:9000/mcp --header 'Authorization: Bearer tok_123'");
    // The Agent API entry lives in `config agent-api` (tests/unit/agent-api.test.ts), with a derived read-only allowlist.
    expect(config.snippets).toHaveLength(2);
    expect(config.hint).toContain(cliCommand('config agent-api'));
    expect(json('http').mcpServers['comet-relay'].headers.Authorization).toBe(`Bearer ${tokenPlaceholder()}`);
  });

  it('an explicit command wins', () => {
    expect(json('cursor', 0, { command: 'comet-relay', args: ['mcp', '--tools', 'read'] }).mcpServers['comet-relay']).toEqual({ command: 'comet-relay', args: ['mcp', '--tools', 'read'] });
  });

  it('unknown client names the valid ones', () => {
    expect(() => clientConfig('emacs')).toThrow(`Unknown MCP client "emacs". Valid clients: ${CLIENTS.join(', ')}.`);
  });

  it('tomlString escapes quotes, backslashes and control characters', () => {
    expect(tomlString('C:\\a "b"\n\u007f')).toBe('"C:\\\\a \\"b\\"\\n\\u007f"');
  });
});

describe('client config --home', () => {
  it('makes a relative --home absolute, since the client starts the server from its own folder', () => {
    const entry = json('cursor', 0, { ...base, home: 'rel/home' }).mcpServers['comet-relay'];
    expect(entry.env.COMET_RELAY_HOME).toBe(`${process.cwd()}/rel/home`);
  });
});

describe("config codex says comet_wait's timeout as the tool defines it (new-user review #15)", () => {
  it("#15: its default and its most, taken from comet_wait's own schema, and what a longer wait needs", () => {
    const wait = cometTools.find((t) => t.name === 'comet_wait');
    const timeout = (z.toJSONSchema(z.object(wait?.inputSchema ?? {})) as { properties: Record<string, { default?: number; maximum?: number }> }).properties.timeout;
    expect(COMET_WAIT_TIMEOUT).toEqual({ defaultMs: timeout?.default, maxMs: timeout?.maximum });
    const toml = clientConfig('codex', base).snippets[0]?.content as string;
    expect(toml).toContain('comet_wait waits 2 minutes by default (its timeout, up to 60).');
    expect(toml).toContain('# A comet_wait longer than 10 minutes needs a larger tool_timeout_sec.');
    expect(toml).not.toContain('up to 5');
  });
});
