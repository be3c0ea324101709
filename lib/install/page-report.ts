import type { PageDiagnosis } from '../protocol/page/page-diagnostics';
import { isConversationPath } from '../protocol/urls';
import { cliCommand } from '../relay/invocation';

/**
 * `comet-relay doctor --page`: what the selector set in use finds on the live Perplexity tab, probe
 * by probe. Some probes only match in some states of the page (a stop button while an answer is
 * written); those are marked as such, so a miss among them is not read as a breakage.
 */
const ONLY_WHEN: Record<string, string> = {
  stopButton: 'while an answer is being written',
  spinner: 'while an answer is being written',
  submit: 'on some pages only once the composer holds text',
  typeahead: 'while the slash menu is open',
  typeaheadItem: 'while the slash menu is open',
  typeaheadShortcut: 'while the slash menu is open',
  typeaheadActive: 'while the slash menu is open and a mode is on',
  modeMenu: 'while the mode menu is open',
  modeMenuItem: 'while the mode menu is open',
  modelPicker: 'in generation B',
  modeChip: 'in generation B',
  computerToggle: 'in generation B',
  citationPopover: 'while a citation popover is open',
  citationPopoverEntry: 'while a citation popover is open',
  queryExpand: 'on long questions',
  codeBlock: 'when an answer holds code',
  codeLanguage: 'when an answer holds code',
  errorMessage: 'when an answer failed',
  stepRow: 'while the steps are unfolded',
  sourcesPanel: 'while the sources tab is open',
  interactionBox: 'while a computer task waits on you',
  interactionPrompt: 'while a computer task waits on you',
  interactionOption: 'while a computer task waits on you',
  interactionField: 'while a computer task waits on you',
  interactionSend: 'while a computer task waits on you',
  interactionApprove: 'while a computer task waits on you',
  interactionDeny: 'while a computer task waits on you',
};

/** Probes a thread page always shows; on the home page only the composer is certain. */
const ESSENTIAL = ['composer', 'turn', 'userBubble', 'answer', 'prose'];

export interface PageReport {
  /** The whole report, ready to print. */
  text: string;
  ok: boolean;
  /** The report without its closing advice: the set, then probe by probe (doctor prints these under its check). */
  lines: string[];
  /** One line: how the page reads, or what is wrong with it. */
  summary: string;
  /** When not ok: what to do (the closing advice of `text`). */
  fix?: string;
}

export function formatPageReport(d: PageDiagnosis): PageReport {
  const origin = d.set.source === 'built-in' ? 'built-in' : `from ${d.set.source}`;
  const lines = [
    `Page probes on ${d.url} ("${d.title}")`,
    `Selector set ${d.set.name} (${origin})${d.confident ? '' : ' — NOT recognised: no set found its signature on this page'}`,
    `  candidates: ${d.candidates.map((c) => `${c.name} score ${c.score}`).join(', ')}`,
  ];
  // The one rule for a page that shows a conversation (lib/protocol/urls.ts), which is where the turn probes must match.
  const isThread = conversationPage(d.url);
  const missedEssential: string[] = [];
  for (const p of d.probes) {
    const when = ONLY_WHEN[p.probe];
    if (p.matched) {
      lines.push(`✔ ${p.probe} — ${p.count} element${p.count === 1 ? '' : 's'} (${p.selector})`);
    } else {
      const essential = p.probe === 'composer' || (isThread && ESSENTIAL.includes(p.probe));
      if (essential) missedEssential.push(p.probe);
      const mark = essential ? '✘' : '·';
      const tried = (p.tried ?? []).map((s) => `\`${s}\``).join(', ');
      lines.push(`${mark} ${p.probe} — no match${when ? ` (expected only ${when})` : ''}: tried ${tried}`);
    }
    if (p.invalid?.length) lines.push(`    not a valid selector in this browser: ${p.invalid.map((s) => `\`${s}\``).join(', ')}`);
  }
  const matched = d.probes.filter((p) => p.matched).length;
  lines.push(`${matched} of ${d.probes.length} probes match.`);
  if (d.repair) {
    // What the tab reads through since the page changed: the derived probes, tried like the set's own.
    lines.push(d.repair.notice, `  ${d.repair.name}, reading only:`);
    for (const p of d.repair.probes) lines.push(`  ${p.matched ? '✔' : '✘'} ${p.probe} — ${p.matched ? `${p.count} element${p.count === 1 ? '' : 's'} (${p.selector})` : 'no match'}`);
  }
  if (d.stream) {
    // The page's own ask streams (issue 30): read in place of the page where they can be.
    const s = d.stream;
    const seen = `${s.streams} stream${s.streams === 1 ? '' : 's'} seen${s.reader ? `, read with ${s.reader}` : ''}`;
    lines.push(s.tap ? `✔ ask stream — the tap is connected, ${seen}` : '· ask stream — the tap did not answer (blocked, or the page loaded before the extension): turns are read from the page');
    if (s.unknown) lines.push(`✘ ask stream — a frame shape the reader does not know: ${s.unknown}; turns are read from the page and the thread JSON. Add an ask-stream-reader pack that knows it (comet-relay selectors show ask-stream-2026-08).`);
  }
  const ok = d.confident && missedEssential.length === 0;
  if (ok) return { text: lines.join('\n'), ok, lines, summary: `selector set ${d.set.name} reads the page: ${matched} of ${d.probes.length} probes match` };
  const summary = `the page is not understood${d.confident ? '' : ' (no selector set recognised it)'}${missedEssential.length ? ` (${missedEssential.join(', ')} missed)` : ''}`;
  const fix = `save a sanitized copy with \`${cliCommand('capture')}\` and attach it to a bug report; to try a fixed selector set, \`${cliCommand('selectors add FILE')}\``;
  const closing = `The page is not understood${missedEssential.length ? ` (${missedEssential.join(', ')} missed)` : ''}. ${fix.charAt(0).toUpperCase()}${fix.slice(1)}.`;
  return { text: [...lines, closing].join('\n'), ok, lines, summary, fix };
}

function conversationPage(url: string): boolean {
  try {
    return isConversationPath(new URL(url).pathname);
  } catch {
    return false;
  }
}
