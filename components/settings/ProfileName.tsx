import { useState } from 'preact/hooks';
import type { PanelConnection } from '../../lib/panel/connection';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/** The profile's label, renamable in place (the worker reconnects so the host learns it). */
export function ProfileName({ label, connection }: { label: string; connection: PanelConnection }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(label);
  const { error, held, run } = useAction();
  if (!editing) {
    return (
      <span class="row">
        <span data-testid="profile">{label}</span>
        <button
          type="button"
          class="link"
          aria-label={`Rename profile ${label}`}
          onClick={() => {
            setDraft(label);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </span>
    );
  }
  const save = async (event: Event) => {
    event.preventDefault();
    if (await run(() => connection.request('panel.renameProfile', { label: draft }))) setEditing(false);
  };
  return (
    <form class="row" onSubmit={save}>
      <label class="visually-hidden" for="profile-name">
        Profile name
      </label>
      <input
        id="profile-name"
        value={draft}
        maxLength={200}
        required
        // biome-ignore lint/a11y/noAutofocus: the person just asked to edit this field
        autoFocus
        onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}
      />
      <button type="submit" disabled={!draft.trim()} {...held}>
        Save
      </button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <ErrorLine error={error} inline />
    </form>
  );
}
