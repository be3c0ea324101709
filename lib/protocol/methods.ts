import { z } from 'zod';
import { BrowserInfo, Door, ProfileInfo } from './messages';
import { PageAccessWords } from './page-access';
import { diagnosticMethods } from './page/page-diagnostics';
import { pageMethods } from './page/page-methods';
import { libraryMethods } from './library/library';
import { threadMethods } from './threads/threads';
import { TAB_CATEGORY_ORDER, type TabCategory } from './urls';

/**
 * The calls a Node process can make into the browser, each with the schema of its parameters
 * and of its result. The service worker parses params at its edge; the client parses results at
 * its own. Methods whose name starts with `page.` run in the content script of the Perplexity tab.
 */

export const TabInfo = z.object({
  id: z.string(),
  windowId: z.number().int(),
  title: z.string(),
  url: z.string(),
  active: z.boolean(),
  category: z.enum(TAB_CATEGORY_ORDER as [TabCategory, ...TabCategory[]]),
});
export type TabInfo = z.infer<typeof TabInfo>;

export const AttachedClient = z.object({
  clientId: z.string(),
  name: z.string(),
  version: z.string().optional(),
  transport: z.enum(['stdio', 'http']).optional(),
  /** The door it came in by, as the relay knows it (lib/protocol/doors.ts); `name` is then the door's for the public one. */
  door: Door.optional(),
  since: z.string(),
});
export type AttachedClient = z.infer<typeof AttachedClient>;

/** The tab the relay drives, and what the content script found in it. */
export const PerplexityTabStatus = z.object({
  tabId: z.string(),
  url: z.string(),
  title: z.string(),
  /** Name of the selector set chosen by probing the page, or null when none matched yet. */
  selectorSet: z.string().nullable(),
  /** Where that set came from: `built-in`, or the path of the file it was added from. */
  selectorSource: z.string().optional(),
});

export const BrowserStatus = z.object({
  profile: ProfileInfo,
  browser: BrowserInfo,
  extensionVersion: z.string(),
  perplexityTab: PerplexityTabStatus.nullable(),
  tabCount: z.number().int(),
  /** Whether the person gave TAB_ACCESS_GRANT (screenshots, other tabs); absent from an extension older than this field. */
  tabAccess: z.boolean().optional(),
  /**
   * Why the driven Perplexity tab has no comet-relay page script, as the browser answered when asked
   * (lib/protocol/page-access.ts); null when it has one or there is no such tab. Absent from an
   * extension older than this field.
   */
  pageAccess: PageAccessWords.nullable().optional(),
});
export type BrowserStatus = z.infer<typeof BrowserStatus>;

const Empty = z.object({}).strict();

export const methods = {
  'browser.status': { params: Empty, result: BrowserStatus },
  /**
   * Perplexity tabs always; other tabs' titles and URLs only as reading another tab allows
   * (lib/protocol/access.ts): else they are counted in `withheld`, with why.
   */
  'tabs.list': {
    params: Empty,
    result: z.object({ tabs: z.array(TabInfo), withheld: z.object({ count: z.number().int().min(1), reason: z.string() }).optional() }),
  },
  'tabs.switch': {
    params: z.object({ tabId: z.string().optional(), title: z.string().optional() }),
    result: z.object({ tab: TabInfo }),
  },
  'tabs.capture': {
    params: z.object({ format: z.enum(['png', 'jpeg']), quality: z.number().int().min(0).max(100).optional() }),
    result: z.object({ data: z.string(), mimeType: z.string() }),
  },
  /** Picks the Perplexity tab to drive (opening one if there is none) and makes it the driven tab. */
  'tabs.ensurePerplexity': { params: Empty, result: z.object({ tab: TabInfo, created: z.boolean() }) },
  /** Opens a Perplexity URL in the driven tab; the worker refuses any other URL itself, whoever sends it. */
  'tabs.navigate': { params: z.object({ url: z.string() }), result: z.object({ url: z.string() }) },
  /** The driven tab's visible text: a Perplexity page through its content script, any other tab only if the person allows it. */
  'page.content': {
    params: z.object({ maxLength: z.number().int().min(1) }),
    result: z.object({
      title: z.string(),
      text: z.string(),
      totalLength: z.number().int(),
      truncated: z.boolean(),
      url: z.string(),
      /** `other-tab`: words of an arbitrary web page, which the MCP tool fences off from its own. */
      source: z.enum(['perplexity', 'other-tab']),
    }),
  },
  /**
   * Asked before create_attachment_upload stores a file: the worker answers with the person's policy, so the side
   * panel's Read-only refuses it as it does every act (review 10, door I1), and nothing else happens in the browser.
   */
  'attachments.admit': {
    params: z.object({ filename: z.string().max(255), sizeBytes: z.number().int().min(0) }).strict(),
    result: z.object({}),
  },
  ...pageMethods,
  ...diagnosticMethods,
  ...threadMethods,
  ...libraryMethods,
} as const;

export type MethodName = keyof typeof methods;
export type MethodParams<M extends MethodName> = z.input<(typeof methods)[M]['params']>;
export type MethodResult<M extends MethodName> = z.output<(typeof methods)[M]['result']>;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}

/** Calls the host answers itself, without the browser. */
export const hostMethods = {
  'host.status': {
    params: Empty,
    result: z.object({
      pid: z.number().int(),
      version: z.string(),
      profile: ProfileInfo,
      browser: BrowserInfo,
      extensionVersion: z.string(),
      clients: z.array(AttachedClient),
      startedAt: z.string(),
    }),
  },
} as const;
