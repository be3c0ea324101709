import { useState } from 'preact/hooks';
import type { PanelConnection } from '../lib/panel/connection';
import type { ThreadInteraction } from '../lib/protocol/watch';
import { useAction } from './useAction';

/**
 * Answers what a thread waits on: a question (its options, or free text), a confirmation
 * (approve / deny), or a sign-in / form that only Perplexity can show (a link).
 */
export function InteractionForm({
  threadKey,
  interaction,
  connection,
}: {
  threadKey: string;
  interaction: ThreadInteraction;
  connection: PanelConnection;
}) {
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();
  const promptId = `interaction-${interaction.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const reply = (value: { kind: 'answer'; text: string } | { kind: 'approve' | 'deny'; reason: string }) =>
    run(() => connection.request('panel.respond', { threadKey, interactionId: interaction.id, reply: value }));

  let controls: preact.JSX.Element;
  if (interaction.type === 'ask_user_question') {
    controls = (
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) void reply({ kind: 'answer', text });
        }}
      >
        {interaction.options?.length ? (
          <fieldset class="row wrap bare">
            <legend class="visually-hidden">Choices</legend>
            {interaction.options.map((option) => (
              <button key={option} type="button" disabled={busy} onClick={() => void reply({ kind: 'answer', text: option })}>
                {option}
              </button>
            ))}
          </fieldset>
        ) : null}
        <div class="row">
          <label class="visually-hidden" for={`${promptId}-text`}>
            Your answer
          </label>
          <input id={`${promptId}-text`} value={text} placeholder="Your answer" onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy || !text.trim()}>
            Send
          </button>
        </div>
      </form>
    );
  } else if (interaction.type === 'confirm_action') {
    controls = (
      <div class="row">
        <button type="button" class="primary" disabled={busy} aria-describedby={promptId} onClick={() => void reply({ kind: 'approve', reason: 'Approved in the side panel' })}>
          Approve
        </button>
        <button type="button" disabled={busy} aria-describedby={promptId} onClick={() => void reply({ kind: 'deny', reason: 'Denied in the side panel' })}>
          Deny
        </button>
      </div>
    );
  } else {
    controls = interaction.url ? (
      <a href={interaction.url} target="_blank" rel="noreferrer" aria-describedby={promptId}>
        {interaction.type === 'auth_required' ? 'Sign in' : 'Open in Perplexity'}
      </a>
    ) : (
      <span class="muted small">Answer it in the Perplexity tab.</span>
    );
  }
  return (
    <div class="interaction" data-testid="interaction">
      <p id={promptId} class="interaction-text">
        {interaction.text}
      </p>
      {controls}
      {error ? (
        <p class="error small" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
