import { describe, expect, it } from 'vitest';
import { PAGE_PORT, PANEL_PORT } from '../../lib/protocol/ports';
import { admitPort, type PortSender } from '../../lib/worker/calls/port-guard';

const self = { id: 'ecmkpcbekkgjknbkippgifninkcepnfa', origin: 'chrome-extension://ecmkpcbekkgjknbkippgifninkcepnfa/' };
const panelPage: PortSender = { id: self.id, url: `${self.origin}sidepanel.html` };
const contentScript: PortSender = { id: self.id, url: 'https://www.perplexity.ai/search/x-1', frameId: 0, tab: { id: 7 } };

describe('admitPort', () => {
  it('the panel port takes the extension\'s own pages, in the side panel or in a tab', () => {
    expect(admitPort(PANEL_PORT, panelPage, self)).toBe('panel');
    expect(admitPort(PANEL_PORT, { ...panelPage, tab: { id: 3 }, frameId: 0 }, self)).toBe('panel');
  });

  it.each<[string, PortSender | undefined]>([
    ['our content script', contentScript],
    ['another extension\'s page', { id: 'abcdefghijklmnopabcdefghijklmnop', url: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html' }],
    ['another extension naming our page', { id: 'abcdefghijklmnopabcdefghijklmnop', url: `${self.origin}sidepanel.html` }],
    ['a sender with our id and a web URL', { id: self.id, url: 'https://evil.example/' }],
    ['a look-alike origin', { id: self.id, url: 'chrome-extension://ecmkpcbekkgjknbkippgifninkcepnfa.evil/x' }],
    ['no url', { id: self.id }],
    ['no sender', undefined],
  ])('the panel port refuses %s', (_what, sender) => {
    expect(admitPort(PANEL_PORT, sender, self)).toBeNull();
  });

  it('the page port takes our content script in the top frame of a Perplexity page', () => {
    expect(admitPort(PAGE_PORT, contentScript, self)).toBe('page');
    expect(admitPort(PAGE_PORT, { ...contentScript, url: 'https://perplexity.ai/' }, self)).toBe('page');
  });

  it.each<[string, PortSender]>([
    ['an extension page in a tab', { id: self.id, url: `${self.origin}sidepanel.html`, tab: { id: 3 }, frameId: 0 }],
    ['another site', { ...contentScript, url: 'https://perplexity.ai.evil.com/' }],
    ['plain http', { ...contentScript, url: 'http://www.perplexity.ai/' }],
    ['a subframe', { ...contentScript, frameId: 4 }],
    ['no tab', { id: self.id, url: contentScript.url }],
    ['another extension', { ...contentScript, id: 'abcdefghijklmnopabcdefghijklmnop' }],
  ])('the page port refuses %s', (_what, sender) => {
    expect(admitPort(PAGE_PORT, sender, self)).toBeNull();
  });

  it('unknown port names are refused', () => {
    expect(admitPort('comet-relay/other', panelPage, self)).toBeNull();
  });
});
