import { expect } from '@playwright/test';
import { TAB_ACCESS_GRANT, TAB_ACCESS_WITHDRAW } from '../../lib/protocol/urls';
import type { Harness } from './harness';

/**
 * Granting the extension's optional access to other tabs (`<all_urls>`) the way a person does: a
 * click on TAB_ACCESS_GRANT ("Let agents take screenshots and read other tabs") in the side panel, which calls `permissions.request`.
 *
 * Chromium answers that call with a confirmation dialog, which headless Chromium cannot show or
 * click. It skips the dialog when the person has already allowed the extension on all sites in
 * chrome://extensions (its "Site access" control), so the harness does that first, through the
 * same private API that page uses. The grant itself still comes from the panel click.
 */
export async function allowAllSitesInExtensionsPage(harness: Harness): Promise<void> {
  const page = await harness.context.newPage();
  try {
    await page.goto('chrome://extensions/');
    const outcome = await page.evaluate(
      `new Promise((resolve) => chrome.developerPrivate.addHostPermission(${JSON.stringify(harness.extensionId)}, '<all_urls>', () =>
        resolve(chrome.runtime.lastError ? chrome.runtime.lastError.message : 'ok')))`,
    );
    expect(outcome).toBe('ok');
  } finally {
    await page.close();
  }
}

/** Clicks the grant under Control in a fresh side panel and waits until the worker says it is allowed. */
export async function allowOtherTabsFromPanel(harness: Harness): Promise<void> {
  await allowAllSitesInExtensionsPage(harness);
  const panel = await harness.openPanel();
  try {
    // Under Control: a fresh profile's panel offers the same grant in its first-run card too.
    await panel.getByTestId('other-tabs').getByRole('button', { name: TAB_ACCESS_GRANT }).click();
    await expect(panel.getByTestId('other-tabs')).toHaveAttribute('data-allowed', 'true');
  } finally {
    await panel.close();
  }
}

/** Clicks the withdrawal under Control and waits until the worker says it is off. */
export async function revokeOtherTabsFromPanel(harness: Harness): Promise<void> {
  const panel = await harness.openPanel();
  try {
    await panel.getByTestId('other-tabs').getByRole('button', { name: TAB_ACCESS_WITHDRAW }).click();
    await expect(panel.getByTestId('other-tabs')).toHaveAttribute('data-allowed', 'false');
  } finally {
    await panel.close();
  }
}
