/**
 * Reconnection schedule toward the native host: a quick burst with exponential backoff
 * (COMET_MAX_RECONNECT attempts, delays capped at COMET_RECONNECT_DELAY, as in the comet_*
 * reference), then a slow retry that never gives up. The slow retry runs on chrome.alarms because
 * plain timers die when the service worker is evicted.
 */
export interface BackoffPolicy {
  maxBurst: number;
  maxDelayMs: number;
  firstDelayMs: number;
  slowRetryMinutes: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  maxBurst: 5,
  maxDelayMs: 5000,
  firstDelayMs: 250,
  // Chrome clamps alarms to at least 30 s.
  slowRetryMinutes: 0.5,
};

export type NextAttempt = { kind: 'timer'; delayMs: number } | { kind: 'alarm'; minutes: number };

/** What to do after the `failures`-th consecutive failed or lost connection (1-based). */
export function nextAttempt(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF): NextAttempt {
  if (failures <= policy.maxBurst) {
    return { kind: 'timer', delayMs: Math.min(policy.firstDelayMs * 2 ** (failures - 1), policy.maxDelayMs) };
  }
  return { kind: 'alarm', minutes: policy.slowRetryMinutes };
}
