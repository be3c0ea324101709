import { SERVER_NAME } from './client-config';
import { cliCommand } from '../relay/invocation';

/**
 * `comet-relay config agent-api`: the `mcp` tool entry for the Perplexity Agent API, as Python,
 * TypeScript and curl. The Agent API discovers a remote Streamable HTTP server's tools when a
 * request starts and runs every call the model makes without asking anyone, so the suggested
 * `allowed_tools` are the read-only tools (the caller derives them from the tools' own read/act
 * classification), and the token is read from the environment instead of being pasted into code.
 */
export interface AgentApiOptions {
  /** `https://NAME/mcp`, or undefined to print a placeholder. */
  serverUrl?: string;
  /** The suggested allowlist (the read-only tools). */
  allowedTools: string[];
  /** Tools left out of the allowlist because they act on the page, named in the advice. */
  actingTools: string[];
}

export interface AgentApiConfig {
  /** The `tools[]` entry, with the token as the placeholder `$COMET_RELAY_TOKEN`. */
  entry: { type: 'mcp'; server_label: string; server_url: string; authorization: string; allowed_tools: string[] };
  text: string;
}

export const PUBLIC_URL_PLACEHOLDER = 'https://YOUR-TUNNEL-ADDRESS/mcp';
const TOKEN_ENV = 'COMET_RELAY_TOKEN';

export function agentApiConfig(options: AgentApiOptions): AgentApiConfig {
  const serverUrl = options.serverUrl ?? PUBLIC_URL_PLACEHOLDER;
  const entry = { type: 'mcp' as const, server_label: SERVER_NAME, server_url: serverUrl, authorization: `$${TOKEN_ENV}`, allowed_tools: options.allowedTools };
  const origin = serverUrl.replace(/\/mcp$/, '');
  /** A list literal, one name per line (a trailing comma is fine in both Python and TypeScript). */
  const list = (indent: string, step: string, quote: (name: string) => string) =>
    options.allowedTools.length === 0 ? '[]' : `[\n${options.allowedTools.map((name) => `${indent}${step}${quote(name)},`).join('\n')}\n${indent}]`;
  const py = (value: string) => JSON.stringify(value);
  const ts = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const prompt = 'Using comet-relay, read the answer in my Perplexity tab and list its sources.';

  const python = [
    'import os',
    'from perplexity import Perplexity',
    '',
    'client = Perplexity()  # reads PERPLEXITY_API_KEY',
    'response = client.responses.create(',
    '    model=os.environ["PERPLEXITY_MODEL"],',
    `    input=${py(prompt)},`,
    '    tools=[',
    '        {',
    '            "type": "mcp",',
    `            "server_label": ${py(SERVER_NAME)},`,
    `            "server_url": ${py(serverUrl)},`,
    `            "authorization": os.environ[${py(TOKEN_ENV)}],  # the raw token`,
    `            "allowed_tools": ${list('            ', '    ', py)},`,
    '            # "headers": {"CF-Access-Client-Id": "...", "CF-Access-Client-Secret": "..."},  # what your tunnel may require',
    '        }',
    '    ],',
    ')',
    'print(response.output_text)',
  ];

  const typescript = [
    "import Perplexity from '@perplexity-ai/perplexity_ai';",
    '',
    'const client = new Perplexity(); // reads PERPLEXITY_API_KEY',
    'const response = await client.responses.create({',
    '  model: process.env.PERPLEXITY_MODEL!,',
    `  input: ${ts(prompt)},`,
    '  tools: [',
    '    {',
    "      type: 'mcp',",
    `      server_label: ${ts(SERVER_NAME)},`,
    `      server_url: ${ts(serverUrl)},`,
    `      authorization: process.env.${TOKEN_ENV}!, // the raw token`,
    `      allowed_tools: ${list('      ', '  ', ts)},`,
    "      // headers: { 'CF-Access-Client-Id': '...', 'CF-Access-Client-Secret': '...' }, // what your tunnel may require",
    '    },',
    '  ],',
    '});',
    'console.log(response.output_text);',
  ];

  const curlTools = JSON.stringify([{ ...entry, authorization: '__TOKEN__' }], null, 2)
    .split('\n')
    .map((line, i) => (i === 0 ? line : `    ${line}`))
    .join('\n')
    .replace('"__TOKEN__"', `"'"$${TOKEN_ENV}"'"`);
  const curl = [
    'curl https://api.perplexity.ai/v1/agent \\',
    '  -H "Authorization: Bearer $PERPLEXITY_API_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    `  -d '{`,
    `    "model": "'"$PERPLEXITY_MODEL"'",`,
    `    "input": ${JSON.stringify(prompt)},`,
    `    "tools": ${curlTools}`,
    `  }'`,
  ];

  const text = [
    '# Perplexity Agent API → comet-relay. The Agent API calls MCP servers from Perplexity\'s cloud over HTTPS,',
    `# so \`${cliCommand('serve')}\` must be reachable at a public HTTPS address through a tunnel you trust, e.g.`,
    `#   ${cliCommand(`serve --public-url ${origin}`)}      (read-only unless you add --allow-acting)`,
    '#   cloudflared tunnel --url http://127.0.0.1:7777    or    tailscale funnel 7777',
    ...(options.serverUrl ? [] : [`# Replace ${PUBLIC_URL_PLACEHOLDER} with that address (or run: ${cliCommand('config agent-api --public-url https://NAME')}).`]),
    '# The public door takes only its own token, never the HTTP token; keep it out of your code:',
    `#   export ${TOKEN_ENV}="$(${cliCommand('token --public')})"   PERPLEXITY_API_KEY=…   PERPLEXITY_MODEL=<a model id from the Agent API's list>`,
    `# To revoke what the Agent API holds without touching local clients: ${cliCommand('token --public --rotate')} (then restart serve).`,
    '# allowed_tools below are the tools that only read. The Agent API runs every call without asking you;',
    `# add acting tools (${options.actingTools.join(', ') || 'none'}) only together with serve --allow-acting, and only if you mean it.`,
    '',
    '# Python',
    ...python,
    '',
    '# TypeScript',
    ...typescript,
    '',
    '# curl',
    ...curl,
    '',
  ].join('\n');
  return { entry, text };
}
