import { useEffect, useState } from 'preact/hooks';
import type { PanelConnection } from '../lib/panel/connection';
import type { PanelState } from '../lib/protocol/panel';
import { ActivityCard } from './agents/ActivityCard';
import { Approvals } from './agents/Approvals';
import { ThreadsCard } from './agents/ThreadsCard';
import { RepairCard } from './page/RepairCard';
import { SelectorsCard } from './page/SelectorsCard';
import { ConnectionCard } from './settings/ConnectionCard';
import { ControlCard } from './settings/ControlCard';
import { FirstRunCard } from './settings/FirstRunCard';
import { ModeCard } from './settings/ModeCard';

/** The side panel: renders the state the worker pushes; every action is a request back to it. */
export function App({ connection }: { connection: PanelConnection }) {
  const [state, setState] = useState<PanelState | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => connection.subscribe(setState), [connection]);
  useEffect(() => connection.onProblem(setProblem), [connection]);
  const said = problem ? (
    <p class="error" role="alert">
      {problem}
    </p>
  ) : null;
  if (!state) return <main class="panel">{said ?? <span aria-busy="true">Connecting to the extension…</span>}</main>;
  return (
    <main class="panel">
      <h1 class="visually-hidden" tabIndex={-1}>
        comet-relay
      </h1>
      {said}
      <Approvals approvals={state.approvals} connection={connection} />
      <FirstRunCard allowed={state.otherTabs.allowed} />
      <ConnectionCard state={state} connection={connection} />
      <RepairCard repair={state.repair} connection={connection} />
      <SelectorsCard packs={state.packs} problem={state.pageProblem} form={state.link.form} />
      <ModeCard state={state} connection={connection} />
      <ThreadsCard threads={state.threads} connection={connection} />
      <ActivityCard activity={state.activity} approvals={state.approvals} connection={connection} />
      <ControlCard settings={state.settings} otherTabs={state.otherTabs} connection={connection} />
    </main>
  );
}
