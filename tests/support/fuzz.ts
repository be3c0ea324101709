import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HOST_NODE_FLAGS } from '../../lib/install/host-manifest';
import { FrameDecoder } from '../../lib/protocol/framing';
import { PROTOCOL_VERSION } from '../../lib/protocol/identity';
import { type Envelope, parseEnvelope } from '../../lib/protocol/messages';
import { RelayClient } from '../../lib/relay/client';
import { listHosts } from '../../lib/relay/discovery';
import { FakeExtension } from './fake-extension';
import { CLI } from './harness';

/**
 * Hostile input for the REAL host: the built `comet-relay host` process (a fake extension on its
 * stdin/stdout), fed on its local socket by many connections at once with frames made from a fixed
 * seed: random bytes, zero, huge and "negative" lengths, truncated frames, bodies that are not
 * UTF-8 or not JSON, JSON nested thousands deep, envelopes with a wrong type in each field, and
 * ordinary requests in between. Every frame that reaches the envelope parser must be answered
 * (a result, an error under its id, an event, a pong); the host must never exit or stop answering.
 */

/** mulberry32: a small seeded generator, so a failing run can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const int = (random: Random, max: number) => Math.floor(random() * max);

function frame(body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32LE(body.length);
  return Buffer.concat([header, body]);
}
const json = (value: unknown) => frame(Buffer.from(JSON.stringify(value)));

const METHODS = ['tabs.list', 'page.poll', 'page.ask', 'browser.status', 'host.status', 'host.nothing', 'page.', 'x'.repeat(300)];
/** Values of every JSON type, for putting where another type belongs. */
const WRONG: readonly unknown[] = [null, 0, -1, 1e308, 3.5, '', 'x', 'é😀\u202e\u0000', true, false, [], [1, 'a'], {}, { nested: { deeper: [] } }, 'y'.repeat(5000)];

/** A valid envelope of each kind a client may (or may not) send. */
function template(random: Random, id: string): Record<string, unknown> {
  return pick(random, [
    { kind: 'request', id, method: pick(random, METHODS), params: { maxLength: int(random, 1000) } },
    { kind: 'request', id, method: 'page.ask', params: { prompt: 'fuzz', newChat: false }, origin: { clientId: 'c', clientName: 'n', tool: 't' } },
    { kind: 'cancel', id: `unknown-${id}`, reason: 'r' },
    { kind: 'ping', t: int(random, 1e9) },
    { kind: 'result', id, result: { a: 1 } },
    { kind: 'progress', id, message: 'm', holdMs: 5 },
    { kind: 'event', event: 'e', data: null },
    { kind: 'chunk', chunkId: 'c', index: 0, count: 1, data: '{}' },
    { kind: 'hello', role: 'client', protocolVersion: PROTOCOL_VERSION, version: '0.1.0' },
  ]);
}

function nested(depth: number, leaf: string): string {
  return `${'{"a":['.repeat(depth)}${leaf}${']}'.repeat(depth)}`;
}

interface Step {
  bytes: Buffer;
  /** How many messages the host must send back for this frame (0 for a cancel). */
  answers: number;
  /** The id a reply must carry, when the frame is a request with a usable id. */
  id?: string;
  /** A valid cancel: the call it names (if still running) then gets no answer at all. */
  cancels?: string;
}

/** One frame inside a session: framed correctly, so the stream stays in step after it. */
function midSessionFrame(random: Random, id: string): Step {
  const roll = random();
  if (roll < 0.05) return { bytes: Buffer.alloc(4), answers: 1 }; // length 0
  if (roll < 0.1) return { bytes: frame(Buffer.from([0xff, 0xfe, 0x80, int(random, 256)])), answers: 1 }; // not UTF-8
  if (roll < 0.15) return { bytes: frame(Buffer.from(pick(random, ['{', '{"kind":', 'nul', '[1,2', '"unterminated', '{"kind":"request","id":"x"']))), answers: 1 }; // truncated JSON
  if (roll < 0.2) return { bytes: json(pick(random, WRONG)), answers: 1 }; // JSON, not an envelope
  if (roll < 0.22) {
    const depth = pick(random, [100, 1000, 10_000, 50_000]);
    if (random() < 0.5) return { bytes: frame(Buffer.from(`{"kind":"request","id":"${id}","method":"tabs.list","params":${nested(depth, '1')}}`)), answers: 1, id };
    return { bytes: frame(Buffer.from(nested(depth, '"deep"'))), answers: 1 };
  }
  const envelope = template(random, id);
  if (roll < 0.7) {
    // A wrong type in one field (or the field missing).
    const keys = Object.keys(envelope);
    const key = pick(random, keys);
    if (random() < 0.15) delete envelope[key];
    else envelope[key] = pick(random, WRONG);
  }
  // A valid cancel is the one frame with no answer of its own (the call it cancels answers, if any).
  const validCancel = parseEnvelope(envelope).ok && envelope.kind === 'cancel';
  const usableId = envelope.kind === 'request' && typeof envelope.id === 'string' && envelope.id.length >= 1 && envelope.id.length <= 200 ? (envelope.id as string) : undefined;
  return { bytes: json(envelope), answers: validCancel ? 0 : 1, id: usableId, cancels: validCancel ? (envelope.id as string) : undefined };
}

/** How a session ends: cleanly, or with bytes that leave the stream out of step (so nothing may follow). */
function sessionEnd(random: Random): Buffer {
  const roll = random();
  if (roll < 0.15) return Buffer.from(Array.from({ length: 1 + int(random, 512) }, () => int(random, 256))); // random bytes
  if (roll < 0.25) {
    const header = Buffer.alloc(4);
    header.writeUInt32LE(pick(random, [0xffffffff, 0x80000000, 64 * 1024 * 1024 + 1, 0x7fffffff])); // huge or "negative"
    return Buffer.concat([header, Buffer.from('{"kind":"request"')]);
  }
  if (roll < 0.35) return frame(Buffer.from(JSON.stringify({ kind: 'request', id: 'cut', method: 'tabs.list', params: {} }))).subarray(0, 4 + int(random, 20)); // truncated
  return Buffer.alloc(0);
}

export interface FuzzResult {
  frames: number;
  sessions: number;
  /** Frames that should have been answered, and were not (by the end of their session). */
  unanswered: number;
  /** Replies to a request id that carried another id, or answered twice. */
  misrouted: number;
  /** The host process exited during the run. */
  hostExited: boolean;
  /** After the run: a well-behaved client still got answers. */
  healthyAfter: boolean;
  wallMs: number;
  hostRssStart?: number;
  hostRssEnd?: number;
  /** The host's peak resident memory over its life (VmHWM). */
  hostPeak?: number;
  firstProblem?: string;
}

export interface RunningHost {
  home: string;
  child: ChildProcess;
  extension: FakeExtension;
  socketPath: string;
  close(): Promise<void>;
}

/** Starts the built `comet-relay host` with a fake extension that answers every request. */
export async function startHostProcess(): Promise<RunningHost> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-fuzz-'));
  const child = spawn(process.execPath, [...HOST_NODE_FLAGS.split(' '), CLI, 'host', 'chrome-extension://fuzz/'], {
    env: { ...process.env, COMET_RELAY_HOME: home },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const extension = new FakeExtension({ id: 'fuzzprofile01', label: 'Fuzz' });
  child.stdout?.on('data', (chunk: Buffer) => extension.take(chunk));
  extension.toHost.pipe(child.stdin as NodeJS.WritableStream);
  extension.answerRequests((request) => ({ tabs: [], echo: request.method }));
  extension.hello();
  await extension.next('welcome');
  const record = listHosts(home)[0];
  if (!record) throw new Error('the host wrote no discovery record');
  return {
    home,
    child,
    extension,
    socketPath: record.socketPath,
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      extension.toHost.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

function rssOf(pid: number | undefined, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** One connection: a hello (usually), frames, an ending; resolves once every answer came or it timed out. */
async function session(host: RunningHost, seed: number, index: number, framesLeft: number, result: FuzzResult): Promise<number> {
  // Each session draws from its own generator, so the run is the same whatever order sessions interleave in.
  const random = rng(seed ^ Math.imul(index + 1, 0x9e3779b1));
  const socket = net.connect(host.socketPath);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  const decoder = new FrameDecoder();
  const replies: Envelope[] = [];
  let notify = () => {};
  socket.on('data', (chunk: Buffer) => {
    for (const f of decoder.push(chunk)) if (f.ok) replies.push(f.value as Envelope);
    notify();
  });
  const greeted = random() < 0.9;
  socket.write(greeted ? json({ kind: 'hello', role: 'client', protocolVersion: PROTOCOL_VERSION, version: '0.1.0', client: { name: `fuzz-${index}` } }) : json(pick(random, WRONG)));
  const count = Math.min(framesLeft, 1 + int(random, 60));
  let expected = 0;
  // A mutated id can repeat within a session ("x", ""…): count the frames per id, not just the ids.
  const ids = new Map<string, { frames: number; cancels: number; bytes: Buffer }>();
  const steps: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const step = midSessionFrame(random, `s${index}-f${i}`);
    steps.push(step.bytes);
    expected += step.answers;
    if (step.id) {
      const entry = ids.get(step.id) ?? { frames: 0, cancels: 0, bytes: step.bytes };
      ids.set(step.id, { ...entry, frames: entry.frames + 1 });
    }
    // A cancel that follows a request with its id may catch it running: that request is then unanswered.
    const target = step.cancels !== undefined ? ids.get(step.cancels) : undefined;
    if (target && target.cancels < target.frames) target.cancels += 1;
  }
  const mayGoUnanswered = [...ids.values()].reduce((sum, e) => sum + e.cancels, 0);
  socket.write(Buffer.concat(steps));
  if (greeted) {
    const deadline = Date.now() + 10_000;
    // welcome + one answer per frame
    while (replies.length < expected + 1 - mayGoUnanswered && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        notify = resolve;
        setTimeout(resolve, 200);
      });
    }
    if (mayGoUnanswered > 0) await new Promise((r) => setTimeout(r, 100)); // answers that may still come
    const answers = replies.length - 1;
    if (answers < expected - mayGoUnanswered || answers > expected) {
      result.unanswered += Math.abs(expected - answers);
      result.firstProblem ??= `session ${index}: ${expected} frames to answer (${mayGoUnanswered} of them possibly cancelled), ${answers} answers`;
    }
    const seen = new Map<string, number>();
    for (const reply of replies) if ('id' in reply && (reply.kind === 'result' || reply.kind === 'error')) seen.set(reply.id, (seen.get(reply.id) ?? 0) + 1);
    for (const [id, { frames, cancels, bytes }] of ids) {
      const times = seen.get(id) ?? 0;
      if (times > frames || times < frames - cancels) {
        result.misrouted += 1;
        result.firstProblem ??= `session ${index}: request ${JSON.stringify(id)} sent ${frames}×, answered ${times}×: ${bytes.subarray(4, 300).toString()}`;
      }
    }
  }
  socket.end(sessionEnd(random));
  socket.destroySoon?.();
  setTimeout(() => socket.destroy(), 50).unref();
  return count + 1;
}

export async function fuzzHost(host: RunningHost, options: { seed: number; frames: number; parallel?: number }): Promise<FuzzResult> {
  const result: FuzzResult = { frames: 0, sessions: 0, unanswered: 0, misrouted: 0, hostExited: false, healthyAfter: false, wallMs: 0, hostRssStart: rssOf(host.child.pid) };
  const started = Date.now();
  let next = 0;
  const lane = async () => {
    while (result.frames < options.frames && host.child.exitCode === null) {
      const index = next++;
      result.frames += 1; // reserve, corrected below
      const sent = await session(host, options.seed, index, options.frames - result.frames + 1, result).catch((error: Error) => {
        result.firstProblem ??= `session ${index}: ${error.message}`;
        return 1;
      });
      result.frames += sent - 1;
      result.sessions += 1;
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 8 }, lane));
  result.wallMs = Date.now() - started;
  result.hostExited = host.child.exitCode !== null;
  result.hostRssEnd = rssOf(host.child.pid);
  result.hostPeak = rssOf(host.child.pid, 'VmHWM');
  const client = new RelayClient({ home: host.home, client: { name: 'after the fuzz' }, transport: 'stdio', hostWaitMs: 2000 });
  try {
    const status = await client.hostStatus({ timeoutMs: 5000 });
    const tabs = await client.call('tabs.list', {}, { timeoutMs: 5000 });
    result.healthyAfter = status.profile.id === 'fuzzprofile01' && Array.isArray(tabs.tabs);
  } catch (error) {
    result.firstProblem ??= `after the fuzz: ${(error as Error).message}`;
  } finally {
    client.close();
  }
  return result;
}
