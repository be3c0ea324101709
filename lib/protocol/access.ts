import type { MethodName } from './methods';

/**
 * Which operations only read and which act — the ONE classification behind `--read-only` (the MCP
 * side offers only tools whose every operation reads, and refuses an acting call at run time) and
 * the side panel's Read-only (the worker refuses acting requests). Both derive from this table.
 */
export type Access = 'read' | 'act';
type Params = Record<string, unknown>;
type Rule = Access | ((params: Params) => Access);

/**
 * Every browser method must be classified here: `satisfies` makes a new method a type error until
 * someone decides whether it acts. "Read" means it changes nothing the person could notice in the
 * page or the browser (a view opened to read is put back as it was).
 */
export const METHOD_ACCESS = {
  'browser.status': 'read',
  'tabs.list': 'read',
  /** Brings the tab forward for the capture and gives the window back to the tab that was in front. */
  'tabs.capture': 'read',
  'tabs.switch': 'act',
  'tabs.ensurePerplexity': 'act',
  'tabs.navigate': 'act',
  'page.content': 'read',
  'page.probe': 'read',
  /** Diagnostics only query the page (doctor --page, capture). */
  'page.diagnose': 'read',
  'page.capture': 'read',
  'page.poll': 'read',
  'page.wait': 'read',
  /** Expands grouped citations and opens the Sources tab to read them; the previous tab is restored. */
  'page.sources': 'read',
  'page.conversations': 'read',
  'page.ask': 'act',
  'page.stop': 'act',
  /** Reading the mode is a read; passing a mode switches it. */
  'page.mode': (params) => (params.mode ? 'act' : 'read'),
  /** Thread reads may open the thread's tab in the background, but never change the thread. */
  'threads.start': 'act',
  'threads.send': 'act',
  'threads.respond': 'act',
  'threads.wait': 'read',
  'threads.state': 'read',
  'threads.read': 'read',
  'threads.assets': 'read',
  'threads.assetDownload': 'read',
  'account.models': 'read',
  'account.projects': 'read',
} satisfies Record<MethodName, Rule>;

/** What an MCP tool can do besides browser methods: ask the host, or start a browser itself. */
export const LOCAL_ACCESS = {
  'host.status': 'read',
  /** comet_connect starts Comet/Chrome when none is connected. */
  'browser.launch': 'act',
  /** create_attachment_upload stores a file that only acting tools can use. */
  'attachments.store': 'act',
} satisfies Record<string, Access>;

/** Anything a tool may declare it uses (lib/mcp/tool.ts `uses`). */
export type Operation = MethodName | keyof typeof LOCAL_ACCESS;

function ruleOf(operation: string): Rule | undefined {
  return (METHOD_ACCESS as Record<string, Rule | undefined>)[operation] ?? (LOCAL_ACCESS as Record<string, Access | undefined>)[operation];
}

/** The access of one call. A name in neither table counts as acting (fail closed). */
export function accessOf(operation: string, params: Params = {}): Access {
  const rule = ruleOf(operation);
  if (rule === undefined) return 'act';
  return typeof rule === 'function' ? rule(params) : rule;
}

/** A set of operations only reads when every one of them always reads (whatever its params). */
export function accessOfAll(operations: readonly string[]): Access {
  return operations.every((operation) => ruleOf(operation) === 'read') ? 'read' : 'act';
}
