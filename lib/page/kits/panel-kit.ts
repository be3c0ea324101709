import { type Conversation, listConversations } from './conversations';
import type { HandlerContext } from '../handlers';
import type { PageDriver } from '../driver';
import type { KitHandlers, PageKitHost } from '../kit-registry';
import { watchPage } from './watch';

/**
 * The panel kit (lib/protocol/page/page-kits.ts): the side panel's live view of the page (`page.watch`)
 * and the sidebar's conversations (`page.conversations`: the panel's list, comet_list_conversations),
 * loaded into a tab the first time one of them asks. A tab no panel looks at never carries it.
 */
export function panelKit({ win, driver }: PageKitHost): KitHandlers {
  return {
    'page.watch': async (_params: Record<string, never>, context: HandlerContext) => watchPage(win, driver(), context),
    'page.conversations': async () => conversationsThrough(driver()),
  };
}

/** `page.conversations`: the conversations the page links to, with the driver's error shaping. */
export function conversationsThrough(driver: PageDriver): Promise<{ conversations: Conversation[] }> {
  return driver.run('listing conversations', () => ({ conversations: listConversations(driver.context()) }));
}
