import { useState } from 'preact/hooks';
import type { PanelConnection } from '../../lib/panel/connection';
import { formatClock } from '../../lib/panel/view';
import type { PanelParams } from '../../lib/protocol/panel';
import type { ThreadInteraction } from '../../lib/protocol/watch';
import { useAction } from '../common/useAction';

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
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const { busy, error, held, run } = useAction();
  const promptId = `interaction-${interaction.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const reply = (value: PanelParams<'panel.respond'>['reply']) =>
    run(() => connection.request('panel.respond', { threadKey, interactionId: interaction.id, reply: value }));
  const questions = interaction.questions ?? [];

  let controls: preact.JSX.Element;
  if (interaction.type === 'ask_user_question' && questions.length > 1) {
    // Several questions answered together (Deep Research asks this way): one choice each, then Send.
    const complete = questions.every((q) => chosen[q.id]);
    controls = (
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (complete) void reply({ kind: 'answers', answers: chosen });
        }}
      >
        {questions.map((q) => (
          <fieldset key={q.id} class="stack bare">
            <legend class="small">{q.text}</legend>
            <div class="row wrap">
              {(q.options ?? []).map((option) => (
                <label key={option} class="row small">
                  <input
                    type="radio"
                    name={`${promptId}-${q.id}`}
                    value={option}
                    checked={chosen[q.id] === option}
                    {...held}
                    // A choice while the answers are being sent is not taken: the box stays as it was.
                    onClick={(e) => busy && e.preventDefault()}
                    onChange={() => setChosen({ ...chosen, [q.id]: option })}
                  />
                  {option}
                </label>
              ))}
            </div>
          </fieldset>
        ))}
        <div class="row">
          <button type="submit" class="primary" disabled={!complete} {...held}>
            Send answers
          </button>
          {interaction.expiresAt ? <span class="muted small">Skipped by Perplexity at {formatClock(Date.parse(interaction.expiresAt))}</span> : null}
        </div>
      </form>
    );
  } else if (interaction.type === 'ask_user_question') {
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
              <button key={option} type="button" {...held} onClick={() => void reply({ kind: 'answer', text: option })}>
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
          <button type="submit" disabled={!text.trim()} {...held}>
            Send
          </button>
        </div>
      </form>
    );
  } else if (interaction.type === 'confirm_action') {
    controls = (
      <div class="row">
        <button type="button" class="primary" {...held} aria-describedby={promptId} onClick={() => void reply({ kind: 'approve', reason: 'Approved in the side panel' })}>
          Approve
        </button>
        <button type="button" {...held} aria-describedby={promptId} onClick={() => void reply({ kind: 'deny', reason: 'Denied in the side panel' })}>
          Deny
        </button>
      </div>
    );
  } else if (interaction.type === 'auth_required') {
    // Sign in where Perplexity says, then tell the task it can go on.
    controls = (
      <div class="row">
        {interaction.url ? (
          <a href={interaction.url} target="_blank" rel="noreferrer" aria-describedby={promptId}>
            Sign in
          </a>
        ) : null}
        <button type="button" {...held} aria-describedby={promptId} onClick={() => void reply({ kind: 'connected' })}>
          I've signed in
        </button>
      </div>
    );
  } else {
    controls = interaction.url ? (
      <a href={interaction.url} target="_blank" rel="noreferrer" aria-describedby={promptId}>
        Open in Perplexity
      </a>
    ) : (
      <span class="muted small">{interaction.type === 'two_factor_required' ? 'Send the code as a new message in the thread.' : 'Answer it in the Perplexity tab.'}</span>
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
