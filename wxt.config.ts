import preact from '@preact/preset-vite';
import { defineConfig } from 'wxt';
import { EXTENSION_PUBLIC_KEY } from './lib/protocol/identity';
import { PERPLEXITY_MATCHES } from './lib/protocol/urls';

export default defineConfig({
  modules: ['@wxt-dev/webextension-polyfill'],
  vite: () => ({ plugins: [preact()] }),
  manifest: {
    name: 'comet-relay',
    description: 'Lets your MCP clients use Perplexity in this browser, and shows what they do.',
    key: EXTENSION_PUBLIC_KEY,
    minimum_chrome_version: '116',
    permissions: ['nativeMessaging', 'tabs', 'storage', 'alarms', 'sidePanel', 'scripting'],
    // <all_urls> is what tabs.captureVisibleTab requires (comet_screenshot) without a user gesture.
    host_permissions: [...PERPLEXITY_MATCHES, '<all_urls>'],
    action: { default_title: 'comet-relay' },
  },
});
