/**
 * The composer's editor: the real Lexical (npm `lexical` + `@lexical/rich-text`, 0.52, the version the
 * live site's behaviour was measured against in the captures' NOTES, §D), mounted on the composer's
 * contenteditable. Not a likeness: its model, its selection tracking (it takes a DOM selection only on
 * `selectionchange`, `beforeinput` and a few other events, so a paste right after a script selects all
 * lands where it last saw the caret), its reverting of DOM changes made behind its back and its handling
 * of synthetic events are the library's own. Mounted fresh with every composer, as the live site mounts
 * one on every page.
 */
import { HeadingNode, QuoteNode, registerRichText } from '@lexical/rich-text';
import {
  $createLineBreakNode,
  $createParagraphNode,
  $createTextNode,
  $getRoot,
  COMMAND_PRIORITY_HIGH,
  createEditor,
  KEY_DOWN_COMMAND,
  type LexicalNode,
} from 'lexical';

export interface MountedEditor {
  /** Replaces everything with `text` ("\n" a line break), caret at the end; committed before it returns. */
  setText(text: string): void;
  dispose(): void;
}

/**
 * Mounts Lexical on `root`. `onText` hears every change of the model's text (paragraphs joined by a
 * blank line, line breaks as "\n", Lexical's own rule); `onKeyDown` sees every key first and returns
 * true for a key it handled (Enter sends, the typeahead's keys), which Lexical then leaves alone.
 */
export function mountEditor(root: HTMLElement, onText: (text: string) => void, onKeyDown: (event: KeyboardEvent) => boolean): MountedEditor {
  const editor = createEditor({
    namespace: 'sim-composer',
    nodes: [HeadingNode, QuoteNode],
    onError: (error) => console.error('[sim] editor', error),
  });
  editor.setRootElement(root);
  const unregister = [
    registerRichText(editor),
    editor.registerTextContentListener(onText),
    editor.registerCommand(KEY_DOWN_COMMAND, (event) => onKeyDown(event), COMMAND_PRIORITY_HIGH),
  ];
  const setText = (text: string) =>
    editor.update(
      () => {
        const paragraph = $createParagraphNode();
        const nodes: LexicalNode[] = [];
        text.split('\n').forEach((line, i) => {
          if (i > 0) nodes.push($createLineBreakNode());
          if (line) nodes.push($createTextNode(line));
        });
        paragraph.append(...nodes);
        $getRoot().clear().append(paragraph);
        if (document.activeElement === root) paragraph.selectEnd();
      },
      { discrete: true },
    );
  setText('');
  return {
    setText,
    dispose: () => {
      for (const off of unregister) off();
      editor.setRootElement(null);
    },
  };
}
