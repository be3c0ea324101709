import { z } from 'zod';

/**
 * Read-only methods that help a person report a page comet-relay does not understand:
 * `page.diagnose` (`comet-relay doctor --page`) tries every probe of the selector set in use, and
 * `page.capture` (`comet-relay capture`) returns the page as a sanitized HTML fixture.
 */
const Empty = z.object({}).strict();

export const ProbeCheck = z.object({
  probe: z.string(),
  matched: z.boolean(),
  count: z.number().int().min(0),
  selector: z.string().optional(),
  tried: z.array(z.string()).optional(),
  invalid: z.array(z.string()).optional(),
});
export type ProbeCheck = z.infer<typeof ProbeCheck>;

export const SetInUse = z.object({ name: z.string(), source: z.string() });

export const PageDiagnosis = z.object({
  url: z.string(),
  title: z.string(),
  set: SetInUse,
  confident: z.boolean(),
  candidates: z.array(z.object({ name: z.string(), score: z.number(), present: z.array(z.string()), conflicting: z.array(z.string()) })),
  probes: z.array(ProbeCheck),
  /** The repair the page reads through (issue 24): its one line, and its own probes tried on the page. */
  repair: z.object({ notice: z.string(), name: z.string(), probes: z.array(ProbeCheck) }).optional(),
  /**
   * The page's own ask streams (issue 30): whether the main-world tap answered, how many streams it handed over,
   * and, once the ask kit reads them, the reader in use and the first frame shape it did not know.
   */
  stream: z.object({ tap: z.boolean(), streams: z.number().int().min(0), reader: z.string().optional(), unknown: z.string().max(2000).optional() }).optional(),
});
export type PageDiagnosis = z.infer<typeof PageDiagnosis>;

export const PageCapture = z.object({
  html: z.string(),
  url: z.string(),
  bytes: z.number().int().min(0),
  truncated: z.boolean(),
  set: SetInUse,
});
export type PageCapture = z.infer<typeof PageCapture>;

export const diagnosticMethods = {
  'page.diagnose': { params: Empty, result: PageDiagnosis },
  'page.capture': { params: Empty, result: PageCapture },
} as const;
