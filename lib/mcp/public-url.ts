import { RelayError } from '../protocol/errors';

/**
 * `serve --public-url https://NAME`: the address a tunnel (cloudflared, Tailscale Funnel, …)
 * publishes for the loopback endpoint. Services such as the Perplexity Agent API call MCP servers
 * from their own cloud, over HTTPS, so they can only reach `serve` through such a tunnel, which
 * forwards requests with `Host: NAME`. The server then accepts that one Host besides the loopback
 * names; the token is required all the same.
 */
export interface PublicUrl {
  /** What the remote client calls: `https://NAME/mcp`. */
  mcpUrl: string;
  /** The Host header the tunnel forwards (lowercase, IDNs in punycode, no default port). */
  host: string;
  /** Every Host header taken as this address: `host`, and `host:443` when the URL names no port. */
  hosts: string[];
}

export function parsePublicUrl(value: string): PublicUrl {
  const bad = (why: string) =>
    new RelayError('CONFIG_ERROR', `--public-url ${JSON.stringify(value)} ${why}. Give the HTTPS address your tunnel publishes, e.g. --public-url https://relay.example.com`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad('is not a URL');
  }
  if (url.protocol !== 'https:') throw bad('must start with https:// (the token would otherwise cross the internet in clear text, and the Agent API only calls HTTPS servers)');
  // Letters, digits, dots and hyphens (IDNs arrive in punycode) or a bracketed IPv6 address: the
  // name ends up in Host comparisons and in the shell commands `config agent-api` prints.
  if (!/^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(url.hostname)) throw bad('must name a host by DNS name or IP address');
  if (url.username || url.password) throw bad('must not carry a user name or password');
  if (url.search || url.hash) throw bad('must not have a query or fragment');
  if (!['/', '/mcp', '/mcp/'].includes(url.pathname)) throw bad('must be the bare address or end in /mcp (the tunnel must forward paths unchanged; the endpoint is /mcp)');
  return { mcpUrl: `${url.origin}/mcp`, host: url.host, hosts: url.port ? [url.host] : [url.host, `${url.host}:443`] };
}

/** Whether a request's Host header names the public address, compared whole (never by substring or suffix). */
export function isPublicHost(header: string, publicUrl: PublicUrl): boolean {
  return publicUrl.hosts.includes(header.toLowerCase());
}
