import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentApiConfig, PUBLIC_URL_PLACEHOLDER } from '../../lib/install/agent-api';
import { allowedHost } from '../../lib/mcp/http';
import { isPublicHost, parsePublicUrl } from '../../lib/mcp/public-url';
import { toolAccess } from '../../lib/mcp/tool';
import { allTools, selectTools } from '../../lib/mcp/tools';
import { RelayError } from '../../lib/protocol/errors';
import { cliCommand } from '../../lib/relay/invocation';

const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

describe('--public-url', () => {
  it('takes the HTTPS address a tunnel publishes and derives the MCP URL and the Host it forwards', () => {
    expect(parsePublicUrl('https://Relay.Example.com')).toEqual({
      mcpUrl: 'https://relay.example.com/mcp',
      host: 'relay.example.com',
      hosts: ['relay.example.com', 'relay.example.com:443'],
    });
    expect(parsePublicUrl('https://relay.example.com/mcp').mcpUrl).toBe('https://relay.example.com/mcp');
    expect(parsePublicUrl('https://relay.example.com:8443/').hosts).toEqual(['relay.example.com:8443']);
    expect(parsePublicUrl('https://bücher.example').host).toBe('xn--bcher-kva.example');
    expect(parsePublicUrl('https://[2001:db8::1]').hosts).toEqual(['[2001:db8::1]', '[2001:db8::1]:443']);
  });

  it.each([
    ['relay.example.com', 'is not a URL'],
    ['http://relay.example.com', 'must start with https://'],
    ['https://user:pw@relay.example.com', 'user name or password'],
    ['https://relay.example.com/mcp?x=1', 'query or fragment'],
    ['https://relay.example.com/other', 'end in /mcp'],
    ["https://a'b.example.com", 'DNS name or IP address'],
    ['https://relay.example.com./', 'DNS name or IP address'],
  ])('refuses %s, saying why', (value, why) => {
    let error: unknown;
    try {
      parsePublicUrl(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).code).toBe('CONFIG_ERROR');
    expect((error as RelayError).message).toContain(why);
  });

  it('accepts exactly that Host besides the loopback names, never a look-alike', () => {
    const pub = parsePublicUrl('https://relay.example.com');
    expect(isPublicHost('relay.example.com', pub)).toBe(true);
    expect(isPublicHost('RELAY.example.com:443', pub)).toBe(true);
    for (const foreign of ['evil.com', 'relay.example.com.evil.com', 'evil.relay.example.com', 'relay.example.com:444', 'relay.example.com.', 'xrelay.example.com']) {
      expect(isPublicHost(foreign, pub), foreign).toBe(false);
      expect(allowedHost(foreign, 7777, pub), foreign).toBe(false);
    }
    expect(allowedHost('127.0.0.1:7777', 7777, pub)).toBe(true);
    expect(allowedHost('relay.example.com', 7777, pub)).toBe(true);
    expect(allowedHost('relay.example.com', 7777)).toBe(false);
  });
});

describe('config agent-api', () => {
  const readTools = selectTools({ readOnly: true }).map((t) => t.name);
  const acting = allTools.filter((t) => toolAccess(t) !== 'read').map((t) => t.name);

  it('suggests exactly the tools classified as read, and the token from the environment', () => {
    const { entry, text } = agentApiConfig({ serverUrl: 'https://relay.example.com/mcp', allowedTools: readTools, actingTools: acting });
    expect(entry).toEqual({ type: 'mcp', server_label: 'comet-relay', server_url: 'https://relay.example.com/mcp', authorization: '$COMET_RELAY_TOKEN', allowed_tools: readTools });
    expect(entry.server_label).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    for (const name of readTools) expect(text).toContain(`"${name}"`);
    expect(text).toContain('# Python');
    expect(text).toContain('"authorization": os.environ["COMET_RELAY_TOKEN"]');
    expect(text).toContain('# TypeScript');
    expect(text).toContain('authorization: process.env.COMET_RELAY_TOKEN!');
    expect(text).toContain('# curl');
    expect(text).toContain('curl https://api.perplexity.ai/v1/agent');
    expect(text).toContain(`${cliCommand('serve --public-url https://relay.example.com')} `);
    expect(text).not.toContain(PUBLIC_URL_PLACEHOLDER);
  });

  it("the curl form is valid JSON once the shell splices the token in", () => {
    const { text } = agentApiConfig({ serverUrl: 'https://relay.example.com/mcp', allowedTools: readTools, actingTools: acting });
    const body = text.slice(text.indexOf("-d '") + 4, text.lastIndexOf("'")).replace(`'"$COMET_RELAY_TOKEN"'`, 'tok').replace(`'"$PERPLEXITY_MODEL"'`, 'm');
    expect(JSON.parse(body).tools).toEqual([{ type: 'mcp', server_label: 'comet-relay', server_url: 'https://relay.example.com/mcp', authorization: 'tok', allowed_tools: readTools }]);
  });

  it('without --public-url it prints a placeholder and says how to fill it', () => {
    const { entry, text } = agentApiConfig({ allowedTools: readTools, actingTools: acting });
    expect(entry.server_url).toBe(PUBLIC_URL_PLACEHOLDER);
    expect(text).toContain('config agent-api --public-url https://NAME');
  });

  it('has the public token exported, never the HTTP token', () => {
    const { text } = agentApiConfig({ serverUrl: 'https://relay.example.com/mcp', allowedTools: readTools, actingTools: acting });
    expect(text).toContain(`export COMET_RELAY_TOKEN="$(${cliCommand('token --public')})"`);
    expect(text).not.toContain(`$(${cliCommand('token')})`);
    expect(text).toContain(cliCommand('token --public --rotate'));
  });

  it.skipIf(!fs.existsSync(CLI))('the built CLI prints it without ever printing either token', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-agent-'));
    try {
      const token = execFileSync(process.execPath, [CLI, 'token', '--home', home], { encoding: 'utf8' }).trim();
      const publicToken = execFileSync(process.execPath, [CLI, 'token', '--public', '--home', home], { encoding: 'utf8' }).trim();
      expect(publicToken).not.toBe(token);
      const rotated = execFileSync(process.execPath, [CLI, 'token', '--public', '--rotate', '--home', home], { encoding: 'utf8' }).trim();
      expect(rotated).not.toBe(publicToken);
      expect(execFileSync(process.execPath, [CLI, 'token', '--home', home], { encoding: 'utf8' }).trim()).toBe(token);
      const out = execFileSync(process.execPath, [CLI, 'config', 'agent-api', '--public-url', 'https://relay.example.com'], {
        encoding: 'utf8',
        env: { ...process.env, COMET_RELAY_HOME: home },
      });
      expect(out).toContain('"server_url": "https://relay.example.com/mcp"');
      expect(out).not.toContain(token);
      expect(out).not.toContain(rotated);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
