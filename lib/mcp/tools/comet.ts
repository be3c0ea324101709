import { z } from 'zod';
import type { TabInfo } from '../../protocol/methods';
import { TAB_CATEGORY_ORDER } from '../../protocol/urls';
import { defineTool, errorText, textResult, type ToolDefinition } from '../tool';

/**
 * The comet_* family: the 13 tools of the CDP-based MCP Comet server, with its names, parameters,
 * defaults and response texts, served through the extension instead of a debug port.
 */

const connect = defineTool({
  name: 'comet_connect',
  title: 'Connect to Comet',
  description:
    'Connect to the Perplexity Comet browser (or Chrome with the comet-relay extension), launching it if needed, and make sure a Perplexity tab is ready. Never closes your tabs.',
  inputSchema: {
    port: z.number().int().min(1).max(65535).optional().describe('Ignored: comet-relay needs no debug port. Kept so existing prompts still work.'),
  },
  access: 'act',
  async handler({ port }, { browser, signal }) {
    await browser.ensureBrowser(signal);
    const { tab } = await browser.call('tabs.ensurePerplexity', {}, { signal, timeoutMs: 15_000 });
    const status = await browser.call('browser.status', {}, { signal, timeoutMs: 5000 });
    const selectorSet = status.perplexityTab?.selectorSet ?? 'not chosen yet (the page has not finished loading)';
    const portNote =
      port !== undefined ? `\nThe port parameter (${port}) is ignored: comet-relay talks to its extension over native messaging.` : '';
    return textResult(
      `Connected to ${status.browser.name} on profile "${status.profile.label}" (Chrome/${status.browser.version}), target tab ${tab.id}\n` +
        `Tab: ${tab.title} — ${tab.url}\nSelector set: ${selectorSet}${portNote}`,
    );
  },
});

const listTabs = defineTool({
  name: 'comet_list_tabs',
  title: 'List tabs',
  description: 'List all browser tabs categorized by role (Main, Sidecar, Agent Browsing, Overlay, Other).',
  inputSchema: {},
  access: 'read',
  async handler(_args, { browser, signal }) {
    const { tabs } = await browser.call('tabs.list', {}, { signal, timeoutMs: 10_000 });
    return textResult(formatTabList(tabs));
  },
});

export function formatTabList(tabs: TabInfo[]): string {
  if (tabs.length === 0) return 'No tabs found.';
  const sections: string[] = [];
  for (const category of TAB_CATEGORY_ORDER) {
    const inCategory = tabs.filter((tab) => tab.category === category);
    if (inCategory.length === 0) continue;
    const lines = inCategory.map((tab) => `  [${tab.id}] ${tab.title} — ${tab.url}`);
    sections.push(`=== ${category} (${inCategory.length}) ===\n${lines.join('\n')}`);
  }
  return sections.join('\n\n');
}

const switchTab = defineTool({
  name: 'comet_switch_tab',
  title: 'Switch tab',
  description:
    'Switch to a different browser tab by ID or title substring; later page tools act on it. At least one of tabId or title must be provided; tabId takes precedence.',
  inputSchema: {
    tabId: z.string().optional().describe('Exact tab ID to switch to (as listed by comet_list_tabs)'),
    title: z.string().optional().describe('Substring of the tab title to match'),
  },
  access: 'act',
  summarize: ({ tabId, title }) => (tabId ? `tab ${tabId}` : `title "${title}"`),
  async handler({ tabId, title }, { browser, signal }) {
    if (tabId === undefined && title === undefined) {
      return errorText('[INVALID_PARAMS] At least one of tabId or title must be provided.');
    }
    const { tabs } = await browser.call('tabs.list', {}, { signal, timeoutMs: 10_000 });
    const match = tabId !== undefined ? tabs.find((tab) => tab.id === tabId) : tabs.find((tab) => tab.title.includes(title ?? ''));
    if (!match) {
      return errorText(tabId !== undefined ? `Tab not found matching ID "${tabId}"` : `Tab not found matching title containing "${title}"`);
    }
    const { tab } = await browser.call('tabs.switch', { tabId: match.id }, { signal, timeoutMs: 10_000 });
    return textResult(`Switched to tab [${tab.id}] ${tab.title} — ${tab.url}`);
  },
});

const getPageContent = defineTool({
  name: 'comet_get_page_content',
  title: 'Get page content',
  description: 'Extract the current page content (title and visible body text) up to a maximum length.',
  inputSchema: {
    maxLength: z.number().int().min(1).max(10_000_000).default(10_000).describe('Maximum characters of page text to extract'),
  },
  access: 'read',
  summarize: ({ maxLength }) => `maxLength ${maxLength}`,
  async handler({ maxLength }, { browser, signal }) {
    const page = await browser.call('page.content', { maxLength }, { signal, timeoutMs: 30_000 });
    const cut = page.truncated
      ? `\n\n[Truncated: showing ${page.text.length} of ${page.totalLength} characters. Call again with a larger maxLength for the rest.]`
      : '';
    return textResult(`Title: ${page.title}\n\n${page.text}${cut}`);
  },
});

export const cometTools: ToolDefinition[] = [connect, listTabs, switchTab, getPageContent];
