import type { PageContent } from '../../lib/page/answer/content';
import type { PageDriver } from '../../lib/page/driver';
import type { PageKitHost } from '../../lib/page/kit-registry';
import { sourcesKit } from '../../lib/page/kits/source-reader';

/** comet_get_page_content's page method as the sources kit answers it in a tab (its handler, given the page's driver). */
export function pageContent(driver: PageDriver, maxLength?: number, library?: boolean): Promise<PageContent> {
  const handlers = sourcesKit({ driver: () => driver } as unknown as PageKitHost);
  return (handlers['page.content'] as unknown as (params: { maxLength?: number; library?: boolean }, context: never) => Promise<PageContent>)({ maxLength, ...(library === undefined ? {} : { library }) }, undefined as never);
}
