import { z } from 'zod';
import { BrowserInfo, ProfileInfo } from './messages';
import { AttachedClient, PerplexityTabStatus } from './methods';

/**
 * What the service worker pushes to the side panel (event `panel.state`), and what the panel may
 * ask of the worker. The panel renders only from these pushes; it never polls.
 */
export const LinkStatus = z.object({
  state: z.enum(['connecting', 'connected', 'disconnected', 'incompatible']),
  detail: z.string().optional(),
  hostVersion: z.string().optional(),
  hostPid: z.number().optional(),
  since: z.number(),
  failures: z.number(),
});

export const ActivityEntry = z.object({
  id: z.string(),
  clientName: z.string(),
  tool: z.string(),
  method: z.string(),
  summary: z.string().optional(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  ok: z.boolean().optional(),
  error: z.string().optional(),
});
export type ActivityEntry = z.infer<typeof ActivityEntry>;

export const PanelState = z.object({
  link: LinkStatus,
  profile: ProfileInfo,
  browser: BrowserInfo,
  extensionVersion: z.string(),
  clients: z.array(AttachedClient),
  perplexityTab: PerplexityTabStatus.nullable(),
  activity: z.array(ActivityEntry),
});
export type PanelState = z.infer<typeof PanelState>;

export const panelMethods = {
  'panel.reconnect': { params: z.object({}), result: z.object({}) },
  'panel.clearActivity': { params: z.object({}), result: z.object({}) },
} as const;
