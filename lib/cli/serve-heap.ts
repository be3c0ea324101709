import v8 from 'node:v8';

/**
 * V8's garbage collector sized for `serve`, set on its own process as it starts (issue 23; bench (r); the figures
 * in docs/measured.md, serve under session churn). `serve` keeps little (its sessions, ~20 kB each) but makes a
 * session per MCP client (the Agent API one per call), each leaving ~350 kB of garbage: the SDK's parse of every
 * message and the tools/list answer framed as an event stream. V8's defaults, tuned for throughput, answered that
 * by growing the young generation to 2 × 16 MB and letting promoted garbage pile up in the old one (to ×4 of what
 * lives) before collecting it: +40 MB of resident memory for 1,000 sessions, with nothing leaking.
 *
 * Both flags are ones V8 reads at each collection, so they hold when set once the process runs (lib/cli/main.ts,
 * before the commands bundle loads); the semi-space's maximum, fixed when the heap is made, would not, and
 * NODE_OPTIONS would need a second process to set it:
 * - the young generation keeps the size it starts with (1 MB a semi-space on Node 20): a scavenge every few
 *   sessions, well under a millisecond each, instead of growing to 16 MB and letting sessions reach the old
 *   generation alive. (Recent V8s raise this flag to 2, its new minimum; there it changes nothing.)
 * - the old generation may grow by 20% of what survived the last full collection before the next one, instead of
 *   up to 300%: a full collection every few MB promoted, a few ms each on a heap of ~20 MB.
 * Neither changed the CPU time serve spent on 1,000 sessions beyond the noise of a shared machine.
 */
export const SERVE_HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=20'] as const;

export function sizeHeapForServe(): void {
  for (const flag of SERVE_HEAP_FLAGS) v8.setFlagsFromString(flag);
}
