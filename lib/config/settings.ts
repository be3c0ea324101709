import { z } from 'zod';
import { RelayError } from '../protocol/errors';

/**
 * The COMET_* settings of the comet_* reference, with the meaning they keep here, plus ours.
 * Read once from the environment; a bad value is a CONFIG_ERROR that names the variable.
 */
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const SettingsSchema = z.object({
  /** Kept for compatibility: comet-relay uses no debug port. */
  COMET_PORT: int(1, 65535).default(9222),
  /** Where the browser is, so a tool can start it when no browser is connected. */
  COMET_PATH: z.string().optional(),
  /** How long to wait for a started browser (and its extension) to connect, in ms. */
  COMET_TIMEOUT: int(1000, 600_000).default(30_000),
  /** The CDP server's poll interval; comet-relay is push-based and uses it only as the stall unit. */
  COMET_POLL_INTERVAL: int(50, 60_000).default(1000),
  COMET_MAX_RECONNECT: int(0, 100).default(5),
  COMET_RECONNECT_DELAY: int(100, 600_000).default(5000),
  COMET_SCREENSHOT_FORMAT: z.enum(['png', 'jpeg']).default('png'),
  COMET_SCREENSHOT_QUALITY: int(0, 100).default(80),
  /** Which browser profile to use when several are connected (id or label substring). */
  COMET_RELAY_PROFILE: z.string().optional(),
  /** How long a call waits for a host to (re)appear before saying no browser is connected, in ms. */
  COMET_HOST_WAIT: int(0, 600_000).default(3000),
  /** How long a thread call (call_perplexity_computer, answer/confirm/notify) holds before `timeout`, in ms. */
  COMET_THREAD_HOLD_MS: int(100, 3_600_000).default(120_000),
  /** The same for a client that runs the call as an MCP task: no checkpoint for this long ends the wait. */
  COMET_THREAD_TASK_HOLD_MS: int(100, 24 * 3_600_000).default(1_200_000),
  /** While a thread call is held, a progress notification goes out at least this often, in ms. */
  COMET_THREAD_PROGRESS_MS: int(100, 15_000).default(10_000),
  /** Tabs comet-relay opens for threads; past this the least recently used idle one is closed. */
  COMET_THREAD_TABS: int(1, 50).default(6),
  /** Largest file create_attachment_upload accepts, in bytes (25 MB). */
  COMET_ATTACHMENT_MAX_BYTES: int(1, 200 * 1024 * 1024).default(25 * 1024 * 1024),
  /** How long an attachment's upload envelope and its stored file live, in ms (an hour). */
  COMET_ATTACHMENT_TTL_MS: int(10_000, 7 * 24 * 3_600_000).default(3_600_000),
  /** Most uploads kept at once (waiting for their file, arriving, or stored) under COMET_RELAY_HOME/attachments. */
  COMET_ATTACHMENT_MAX_FILES: int(1, 10_000).default(200),
  /** Most bytes those uploads may hold together, counted at what each envelope allows (1 GB). */
  COMET_ATTACHMENT_MAX_TOTAL_BYTES: int(1, 100 * 1024 * 1024 * 1024).default(1024 * 1024 * 1024),
  /**
   * `serve`: a session with no request open for this long ends (its relay connection closes and it
   * leaves the side panel), in ms. A client holding its event stream open is in use, not idle.
   */
  COMET_SESSION_IDLE_TIMEOUT: int(1000, 86_400_000).default(3_600_000),
  /** `serve`: at most this many sessions at once; a new one ends the longest idle one, if any. */
  COMET_MAX_SESSIONS: int(1, 10_000).default(64),
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
