import type { PanelState } from '../lib/protocol/panel';

const LINK_LABEL: Record<PanelState['link']['state'], string> = {
  connected: 'Connected to comet-relay',
  connecting: 'Connecting…',
  disconnected: 'Not connected',
  incompatible: 'Version mismatch',
};

/** Whether the host is there (and why not), which profile this is, and who is attached. */
export function ConnectionCard({ state, onReconnect }: { state: PanelState; onReconnect(): void }) {
  const { link, clients, profile, perplexityTab } = state;
  return (
    <section class="card" aria-labelledby="connection-heading">
      <h2 id="connection-heading">Connection</h2>
      <p class={`status status-${link.state}`} data-testid="link-state" data-state={link.state}>
        <span class="dot" aria-hidden="true" />
        {LINK_LABEL[link.state]}
        {link.hostVersion && link.state === 'connected' ? <span class="muted"> · host {link.hostVersion}</span> : null}
      </p>
      {link.state !== 'connected' && link.detail ? (
        <p class="detail" data-testid="link-detail">
          {link.detail}
          <br />
          <span class="muted">Run <code>npx comet-relay doctor</code> to check every link.</span>
        </p>
      ) : null}
      {link.state !== 'connected' ? (
        <button type="button" onClick={onReconnect}>
          Reconnect now
        </button>
      ) : null}
      <dl class="facts">
        <dt>Profile</dt>
        <dd data-testid="profile">{profile.label}</dd>
        <dt>Perplexity tab</dt>
        <dd data-testid="perplexity-tab">
          {perplexityTab ? `${perplexityTab.title || perplexityTab.url} (${perplexityTab.selectorSet ?? 'no selector set yet'})` : 'none open'}
        </dd>
      </dl>
      <h3>MCP clients ({clients.length})</h3>
      {clients.length === 0 ? (
        <p class="muted" data-testid="no-clients">No MCP client attached.</p>
      ) : (
        <ul class="clients" data-testid="clients">
          {clients.map((client) => (
            <li key={client.clientId} data-testid="client">
              <strong>{client.name}</strong>
              <span class="muted">
                {' '}
                {client.transport ?? ''} · since {new Date(client.since).toLocaleTimeString()}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
