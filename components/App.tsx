import { useEffect, useState } from 'preact/hooks';
import type { PanelConnection } from '../lib/panel/connection';
import type { PanelState } from '../lib/protocol/panel';
import { ConnectionCard } from './ConnectionCard';

export function App({ connection }: { connection: PanelConnection }) {
  const [state, setState] = useState<PanelState | undefined>();
  useEffect(() => connection.subscribe(setState), [connection]);
  if (!state) return <main class="panel" aria-busy="true">Connecting to the extension…</main>;
  return (
    <main class="panel">
      <ConnectionCard state={state} onReconnect={() => void connection.request('panel.reconnect')} />
    </main>
  );
}
