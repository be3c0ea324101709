import { z } from 'zod';
import { RelayError } from '../protocol/errors';
import { MAX_THREAD_TABS, MAX_THREAD_WAIT_MS, MAX_TURN_ATTACHMENT_BYTES } from '../protocol/threads/threads';

/**
 * The COMET_* settings of the comet_* reference, with the meaning they keep here, plus ours.
 * Read once from the environment; a bad value is a CONFIG_ERROR that names the variable and, for a
 * number, its range. Each range is what the code behind the setting can do: a limit that a
 * consumer checks (a protocol schema, one turn's files) is imported from there, not restated.
 */

/** The range of each numeric setting; `unit` is how the refusal words it. */
export const SETTING_RANGES = {
  /** Kept for compatibility: comet-relay uses no debug port. */
  COMET_PORT: { min: 1, max: 65535, unit: '' },
  /** How long to wait for a started browser (and its extension) to connect. */
  COMET_TIMEOUT: { min: 1000, max: 600_000, unit: 'ms' },
  /** The CDP server's poll interval; comet-relay is push-based and uses it only as the stall unit (×10). */
  COMET_POLL_INTERVAL: { min: 50, max: 60_000, unit: 'ms' },
  COMET_MAX_RECONNECT: { min: 0, max: 100, unit: '' },
  COMET_RECONNECT_DELAY: { min: 100, max: 600_000, unit: 'ms' },
  COMET_SCREENSHOT_QUALITY: { min: 0, max: 100, unit: '' },
  /** How long a call waits for a host to (re)appear before saying no browser is connected. */
  COMET_HOST_WAIT: { min: 0, max: 600_000, unit: 'ms' },
  /** How long a thread call (call_perplexity_computer, answer/confirm/notify) holds before `timeout`. */
  COMET_THREAD_HOLD_MS: { min: 100, max: MAX_THREAD_WAIT_MS, unit: 'ms' },
  /** The same for a client that runs the call as an MCP task: no checkpoint for this long ends the wait. */
  COMET_THREAD_TASK_HOLD_MS: { min: 100, max: MAX_THREAD_WAIT_MS, unit: 'ms' },
  /** While a thread call is held, a progress notification goes out at least this often. */
  COMET_THREAD_PROGRESS_MS: { min: 100, max: 15_000, unit: 'ms' },
  /** Tabs comet-relay opens for threads; past this the least recently used idle one is closed. */
  COMET_THREAD_TABS: { min: 1, max: MAX_THREAD_TABS, unit: '' },
  /** Largest file create_attachment_upload accepts: at most what one turn can carry. */
  COMET_ATTACHMENT_MAX_BYTES: { min: 1, max: MAX_TURN_ATTACHMENT_BYTES, unit: 'bytes' },
  /** How long an attachment's upload envelope and its stored file live (at most a week). */
  COMET_ATTACHMENT_TTL_MS: { min: 10_000, max: 7 * 24 * 3_600_000, unit: 'ms' },
  /** Most uploads kept at once (waiting for their file, arriving, or stored) under COMET_RELAY_HOME/attachments. */
  COMET_ATTACHMENT_MAX_FILES: { min: 1, max: 10_000, unit: '' },
  /** Most bytes those uploads may hold together, counted at what each envelope allows. */
  COMET_ATTACHMENT_MAX_TOTAL_BYTES: { min: 1, max: 100 * 1024 * 1024 * 1024, unit: 'bytes' },
  /**
   * `serve`: a session with no request open for this long ends (its relay connection closes and it
   * leaves the side panel). A client holding its event stream open is in use, not idle.
   */
  COMET_SESSION_IDLE_TIMEOUT: { min: 1000, max: 86_400_000, unit: 'ms' },
  /** `serve`: at most this many sessions at once; a new one ends the longest idle one, if any. */
  COMET_MAX_SESSIONS: { min: 1, max: 10_000, unit: '' },
  /**
   * `serve --public-url`: at most this many sessions through the public door, in a book of their
   * own (lib/protocol/access.ts DOOR_SESSIONS): a full public book ends only public sessions.
   */
  COMET_MAX_PUBLIC_SESSIONS: { min: 1, max: 10_000, unit: '' },
} as const satisfies Record<string, { min: number; max: number; unit: string }>;

type RangedSetting = keyof typeof SETTING_RANGES;

const int = (name: RangedSetting) => {
  const { min, max, unit } = SETTING_RANGES[name];
  const error = `must be a whole number from ${min} to ${max}${unit ? ` (${unit})` : ''}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

const SettingsSchema = z
  .object({
    COMET_PORT: int('COMET_PORT').default(9222),
    /** Where the browser is, so a tool can start it when no browser is connected. */
    COMET_PATH: z.string().optional(),
    COMET_TIMEOUT: int('COMET_TIMEOUT').default(30_000),
    COMET_POLL_INTERVAL: int('COMET_POLL_INTERVAL').default(1000),
    COMET_MAX_RECONNECT: int('COMET_MAX_RECONNECT').default(5),
    COMET_RECONNECT_DELAY: int('COMET_RECONNECT_DELAY').default(5000),
    COMET_SCREENSHOT_FORMAT: z.enum(['png', 'jpeg']).default('png'),
    COMET_SCREENSHOT_QUALITY: int('COMET_SCREENSHOT_QUALITY').default(80),
    /** Which browser profile to use when several are connected: its id, or its label (exactly, any case; else the one connected label that begins with it). */
    COMET_RELAY_PROFILE: z.string().optional(),
    COMET_HOST_WAIT: int('COMET_HOST_WAIT').default(3000),
    COMET_THREAD_HOLD_MS: int('COMET_THREAD_HOLD_MS').default(120_000),
    COMET_THREAD_TASK_HOLD_MS: int('COMET_THREAD_TASK_HOLD_MS').default(1_200_000),
    COMET_THREAD_PROGRESS_MS: int('COMET_THREAD_PROGRESS_MS').default(10_000),
    COMET_THREAD_TABS: int('COMET_THREAD_TABS').default(6),
    /** 25 MB. */
    COMET_ATTACHMENT_MAX_BYTES: int('COMET_ATTACHMENT_MAX_BYTES').default(25 * 1024 * 1024),
    /** An hour. */
    COMET_ATTACHMENT_TTL_MS: int('COMET_ATTACHMENT_TTL_MS').default(3_600_000),
    COMET_ATTACHMENT_MAX_FILES: int('COMET_ATTACHMENT_MAX_FILES').default(200),
    /** 1 GB. */
    COMET_ATTACHMENT_MAX_TOTAL_BYTES: int('COMET_ATTACHMENT_MAX_TOTAL_BYTES').default(1024 * 1024 * 1024),
    COMET_SESSION_IDLE_TIMEOUT: int('COMET_SESSION_IDLE_TIMEOUT').default(3_600_000),
    COMET_MAX_SESSIONS: int('COMET_MAX_SESSIONS').default(64),
    COMET_MAX_PUBLIC_SESSIONS: int('COMET_MAX_PUBLIC_SESSIONS').default(16),
  })
  .superRefine((settings, context) => {
    // A store that cannot hold one largest file refuses every envelope of that size.
    if (settings.COMET_ATTACHMENT_MAX_TOTAL_BYTES < settings.COMET_ATTACHMENT_MAX_BYTES) {
      context.addIssue({
        code: 'custom',
        path: ['COMET_ATTACHMENT_MAX_TOTAL_BYTES'],
        message: `must be at least COMET_ATTACHMENT_MAX_BYTES (${settings.COMET_ATTACHMENT_MAX_BYTES})`,
      });
    }
  });

export type Settings = z.infer<typeof SettingsSchema>;

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const relevant = Object.fromEntries(
    Object.keys(SettingsSchema.shape)
      .filter((key) => env[key] !== undefined && env[key] !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = SettingsSchema.safeParse(relevant);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = String(issue?.path[0] ?? 'a COMET_* variable');
  throw new RelayError('CONFIG_ERROR', `${key}=${JSON.stringify(env[key])} is not valid: ${issue?.message}. Fix or unset it.`);
}
