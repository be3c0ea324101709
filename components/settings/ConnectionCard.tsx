import { useState } from 'preact/hooks';
import type { PanelConnection } from '../../lib/panel/connection';
import { connectionHeadline, formatClock } from '../../lib/panel/view';
import { cliHintCommand, cliHintNote } from '../../lib/protocol/identity';
import { pageAccessTabLine } from '../../lib/protocol/page-access';
import type { PanelState } from '../../lib/protocol/panel';
import { ProfileName } from './ProfileName';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/** Whether the host is there (and why not), which profile this is, the tab, and who is attached. */
export function ConnectionCard({ state, connection }: { state: PanelState; connection: PanelConnection }) {
  const { link, clients, profile, perplexityTab } = state;
  const reconnect = useAction();
  const copy = useCopy();
  const headline = connectionHeadline(state);
  const access = state.pageAccess;
  return (
    <section class="card" aria-labelledby="connection-heading">
      <h2 id="connection-heading">Connection</h2>
      <p class={`status status-${headline.look}`} data-testid="link-state" data-state={headline.state}>
        <span class="dot" aria-hidden="true" />
        {headline.label}
        {link.hostVersion && link.state === 'connected' ? <span class="muted"> · host {link.hostVersion}</span> : null}
      </p>
      {link.state === 'connected' && access ? (
        <div class="detail" data-testid="page-access" data-state={access.state} role={headline.look === 'disconnected' ? 'alert' : undefined}>
          <p>{access.message}</p>
          {access.command ? (
            <>
              <p>
                <code data-testid="page-access-command">{access.command}</code>{' '}
                <button type="button" aria-label="Copy the command" {...copy.held} onClick={() => void copy.run(() => copyText(access.command ?? ''))}>
                  {copy.copied ? 'Copied' : 'Copy'}
                </button>
              </p>
              <ErrorLine error={copy.error} testId="page-access-copy-error" />
            </>
          ) : null}
        </div>
      ) : null}
      {link.state !== 'connected' && link.detail ? (
        <p class="detail" data-testid="link-detail">
          {link.detail}
          <br />
          <span class="muted">
            Run <code data-testid="doctor-command">{cliHintCommand('doctor', link.form)}</code>
            {cliHintNote('doctor', link.form, true)} to check every link.
          </span>
        </p>
      ) : null}
      {link.state !== 'connected' ? (
        <>
          <button type="button" {...reconnect.held} onClick={() => void reconnect.run(() => connection.request('panel.reconnect'))}>
            Reconnect now
          </button>
          <ErrorLine error={reconnect.error} testId="reconnect-error" />
        </>
      ) : null}
      <dl class="facts">
        <dt>Profile</dt>
        <dd>
          <ProfileName label={profile.label} connection={connection} />
        </dd>
        <dt>Browser</dt>
        <dd>
          {state.browser.name} {state.browser.version.split('.')[0]} · extension {state.extensionVersion}
        </dd>
        <dt>Perplexity tab</dt>
        <dd data-testid="perplexity-tab">
          {perplexityTab ? (
            <>
              {perplexityTab.title || perplexityTab.url}
              <br />
              <span class="muted">selector set </span>
              <code data-testid="selector-set">{perplexityTab.selectorSet ?? 'not chosen yet'}</code>
              {perplexityTab.selectorSet ? (
                <span class="muted" data-testid="selector-source">
                  {' '}
                  · {perplexityTab.selectorSource && perplexityTab.selectorSource !== 'built-in' ? `from ${perplexityTab.selectorSource}` : 'built-in'}
                </span>
              ) : null}
            </>
          ) : access ? (
            // Open but without comet-relay in it (blocked, site access off, loading): never "none open" (review 15f, F1).
            pageAccessTabLine(access)
          ) : (
            'none open'
          )}
        </dd>
      </dl>
      <h3 id="clients-heading">MCP clients ({clients.length})</h3>
      {clients.length === 0 ? (
        <p class="muted" data-testid="no-clients">
          No MCP client attached.
        </p>
      ) : (
        <ul class="clients" data-testid="clients" aria-labelledby="clients-heading">
          {clients.map((client) => (
            <li key={client.clientId} data-testid="client">
              <strong>{client.name}</strong>
              {client.version ? <span class="muted"> {client.version}</span> : null}
              <span class="muted">
                {' '}
                · {client.transport ?? 'local'} · since {formatClock(Date.parse(client.since))}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Copies a command for the person, saying so ("Copied") or why not (review 15f, F12: a failed write was swallowed and a
 * good one said nothing).
 */
function useCopy() {
  const action = useAction();
  const [copied, setCopied] = useState(false);
  return {
    ...action,
    copied,
    run: async (copy: () => Promise<void>) => {
      setCopied(await action.run(copy));
    },
  };
}

async function copyText(text: string): Promise<void> {
  if (!navigator.clipboard) throw new Error('This panel cannot reach the clipboard: select the command and copy it by hand.');
  await navigator.clipboard.writeText(text).catch((e: unknown) => {
    throw new Error(`The clipboard refused the command (${(e as Error).message ?? String(e)}): select it and copy it by hand.`);
  });
}
