import { PanelState } from '../../lib/protocol/panel';

/** A state as this build's worker pushes it: a connected link, no tab, nothing running; `over` changes what a test needs. */
export function panelState(over: Record<string, unknown> = {}): PanelState {
  return PanelState.parse({
    link: { state: 'connected', since: 1, failures: 0 },
    profile: { id: 'abcdef0123456789', label: 'Work' },
    browser: { name: 'Chromium', version: '156.0.0.0', userAgent: 'Chromium/156' },
    extensionVersion: '0.1.0',
    clients: [],
    perplexityTab: null,
    mode: { current: null },
    pageStatus: null,
    threads: [],
    activity: [],
    settings: { requireApproval: false, readOnly: false, approvalTimeoutSec: 120, publicScreenshots: false, publicLibrary: false },
    otherTabs: { allowed: false },
    approvals: [],
    packs: { added: [], readers: [], problems: [] },
    pageProblem: null,
    pageAccess: null,
    ...over,
  });
}
