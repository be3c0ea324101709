import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'wxt';
import { EXTENSION_PUBLIC_KEY } from './lib/protocol/identity';
import { OTHER_TABS_ORIGINS, PERPLEXITY_MATCHES } from './lib/protocol/urls';

export default defineConfig({
  modules: ['@wxt-dev/webextension-polyfill'],
  vite: () => ({ plugins: [preact()] }),
  hooks: {
    // Content scripts get Chromium's own API, not the polyfill (see lib/page/native-browser.ts), and no WXT context,
    // which none of them takes (lib/page/no-context.ts).
    'vite:build:extendConfig': (entrypoints, config) => {
      if (!entrypoints.every((e) => e.type === 'content-script')) return;
      const ours = [
        { find: /^wxt\/browser$/, replacement: fileURLToPath(new URL('./lib/page/native-browser.ts', import.meta.url)) },
        { find: /^wxt\/utils\/content-script-context$/, replacement: fileURLToPath(new URL('./lib/page/no-context.ts', import.meta.url)) },
      ];
      const current = config.resolve?.alias;
      const list = Array.isArray(current) ? current : Object.entries(current ?? {}).map(([find, replacement]) => ({ find, replacement: String(replacement) }));
      config.resolve = { ...config.resolve, alias: [...ours, ...list] };
    },
  },
  manifest: {
    name: 'comet-relay',
    description: 'Lets your MCP clients use Perplexity in this browser, and shows what they do.',
    key: EXTENSION_PUBLIC_KEY,
    minimum_chrome_version: '116',
    permissions: ['nativeMessaging', 'tabs', 'storage', 'alarms', 'sidePanel', 'scripting'],
    host_permissions: [...PERPLEXITY_MATCHES],
    // Other tabs (reading them, and every screenshot: captureVisibleTab requires <all_urls>) only once
    // the person allows it from the side panel; see lib/worker/calls/other-tabs.ts.
    optional_host_permissions: [...OTHER_TABS_ORIGINS],
    action: { default_title: 'comet-relay' },
  },
});
