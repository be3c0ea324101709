import type { ModeId } from '../types';

/**
 * Everything the simulated page writes for people, in one language: visible text, `aria-label`s,
 * placeholders. One file per language (en.ts, fr.ts, ar.ts); a new page of the sim takes its words
 * from here too, so every language keeps working. Classes, ids, data attributes and icons never
 * change with the language, as on the real site; answers and step texts are the scenario's content
 * and stay as the scenario wrote them.
 */
export interface SimLabels {
  /** `<html lang>` */
  lang: string;
  dir: 'ltr' | 'rtl';

  // composer
  askAnything: string;
  askFollowUp: string;
  askAboutPage: string;
  attachFiles: string;
  dictation: string;
  submit: string;
  stop: string;
  slashHint: string;
  typeaheadMenu: string;
  modesGroup: string;
  shortcutsGroup: string;
  removeMode(mode: string): string;
  computer: string;
  modes: Record<ModeId, { label: string; desc: string }>;

  // thread
  showMore: string;
  showLess: string;
  editQuery: string;
  copyQuery: string;
  answerTab: string;
  /** The sources tab of generation A / of generation B. */
  sourcesTab: string;
  linksTab: string;
  working: string;
  stepsFinished(n: number): string;
  stepsStopped(n: number): string;
  cancel: string;
  waitingForInput: string;
  waitingForConfirmation: string;
  suggestedAnswers: string;
  typeYourAnswer: string;
  yourAnswer: string;
  send: string;
  sendAnswer: string;
  approve: string;
  deny: string;
  retry: string;
  share: string;
  rewrite: string;
  copy: string;
  helpful: string;
  more: string;
  uploadedFile: string;
  sourcesCount(n: number): string;

  // page furniture
  sidebar: string;
  newThread: string;
  home: string;
  discover: string;
  spaces: string;
  library: string;
  artifacts: string;
  recent: string;
  couldNotLoadThreads: string;
  expandPane: string;
  justNow: string;
  minutesAgo(n: number): string;
  hoursAgo(n: number): string;
  daysAgo(n: number): string;
  threadsCount(n: number): string;
  noThreads: string;
  notFoundTitle: string;
  notFoundText: string;
  goHome: string;
  assistant: string;
  assistantHint: string;
}
