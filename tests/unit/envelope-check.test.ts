import { describe, expect, test } from 'vitest';
import { checkEnvelope, isRequestId } from '../../lib/protocol/envelope-check';
import { parseEnvelope, RequestId } from '../../lib/protocol/messages';
import { rng } from '../support/fuzz';

/**
 * The host's zod-free envelope check (lib/protocol/envelope-check.ts) against the definition it
 * stands in for, `Envelope` in messages.ts: for a valid envelope of every kind, and for each with
 * every field missing, replaced by a value of every other type, pushed over each bound, or joined
 * by a field nobody knows, both must accept or refuse alike, and return the same envelope.
 */

const WRONG: readonly unknown[] = [null, 0, -1, 1.5, 1e308, 2 ** 53, '', 'x', 'é😀\u202e\u0000', true, false, [], [1, 'a'], {}, { nested: [] }];

/** Every kind with every optional field filled in. */
const VALID: Record<string, unknown>[] = [
  { kind: 'request', id: 'r1', method: 'page.poll', params: { maxLength: 5 }, origin: { clientId: 'c', clientName: 'n', tool: 't', summary: 's', door: 'public' }, trace: true },
  { kind: 'request', id: 'r2', method: 'tabs.list', params: null },
  { kind: 'result', id: 'r1', result: { a: [1, { b: 'c' }] }, trace: { page: 0.25, host: 3 } },
  { kind: 'result', id: 'r1', result: null },
  { kind: 'error', id: 'r1', error: { code: 'TIMEOUT', message: 'too slow' } },
  { kind: 'error', id: 'r1', error: { code: 'RATE_LIMITED', message: 'slow down', data: { retryAfterMs: 5000 } } },
  { kind: 'error', id: 'r1', error: { code: 'RATE_LIMITED', message: 'wait', data: { retryAfterMs: 7000 } } },
  { kind: 'error', id: 'r1', error: { code: 'TIMEOUT', message: 'taken', data: { taken: { turnIndex: 2, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'q', askedAt: 1_764_900_000_000 } } } },
  { kind: 'cancel', id: 'r1', reason: 'gone' },
  { kind: 'progress', id: 'r1', message: 'step', progress: 1, total: 3, holdMs: 3_600_000 },
  { kind: 'event', event: 'host.clients', data: { clients: [] } },
  {
    kind: 'hello',
    protocolVersion: 3,
    version: '0.1.0',
    role: 'extension',
    profile: { id: 'abcDEF12_-', label: 'Work' },
    browser: { name: 'Chrome', version: '156', userAgent: 'UA' },
    client: { name: 'claude', version: '1.0' },
    transport: 'stdio',
    door: 'loopback',
  },
  { kind: 'welcome', protocolVersion: 3, version: '0.1.0', pid: 42, clientId: 'k1' },
  { kind: 'welcome', protocolVersion: 3, version: '0.1.0', pid: 42, command: "node '/home/a b/dist/cli.js'" },
  { kind: 'welcome', protocolVersion: 3, version: '0.1.0', pid: 42, command: 'comet-relay', home: "'/srv/my relay'" },
  { kind: 'incompatible', protocolVersion: 3, version: '0.1.0', message: 'no' },
  { kind: 'ping', t: 5 },
  { kind: 'pong', t: 0.5 },
  { kind: 'chunk', chunkId: 'c1', index: 0, count: 1, data: '{}' },
];

/** Values at and just past each bound the schema sets, by field name. */
const BOUNDS: Record<string, readonly unknown[]> = {
  id: ['', 'i', 'i'.repeat(200), 'i'.repeat(201)],
  method: ['', 'm'],
  event: ['', 'e'],
  holdMs: [0, -1, 3_600_001, 2.5],
  index: [0, -1, 0.5],
  count: [0, 1, 2 ** 53],
  protocolVersion: [0, -5, 1.5, Number.MAX_SAFE_INTEGER, 2 ** 53],
  pid: [1.1, -1],
  command: ['c', 'c'.repeat(1000), 'c'.repeat(1001), 'a\tb', 'a\u007fb', 'npx /é/comet-relay-0.1.0.tgz'],
  home: ['', 'h', 'h'.repeat(1000), 'h'.repeat(1001), 'a\nb', "'/srv/é relay'"],
  label: ['l'.repeat(200), 'l'.repeat(201)],
  code: ['TIMEOUT', 'NOT_A_CODE', 'timeout'],
  retryAfterMs: [0, -1, 86_400_000, 86_400_001, 1.5],
  conversationUrl: ['u'.repeat(4000), 'u'.repeat(4001)],
  questionKey: ['q'.repeat(1000), 'q'.repeat(1001)],
  askedAt: [0, -1, 1.5],
  role: ['client', 'extension', 'other'],
  transport: ['http', 'ws'],
  door: ['loopback', 'public', 'tunnel', 'Public'],
  trace: [true, false, {}, { ['k'.repeat(40)]: 1 }, { ['k'.repeat(41)]: 1 }, { a: 'x' }, { __proto__: 1 }],
};

/** Every path to a field inside an object (nested objects included). */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...paths(child, [...prefix, key])]);
}

function withField(value: Record<string, unknown>, path: string[], replacement: unknown | typeof REMOVE): Record<string, unknown> {
  const copy = structuredClone(value);
  let target = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = target[key];
    if (typeof next !== 'object' || next === null) return copy; // an earlier change replaced the parent
    target = next as Record<string, unknown>;
  }
  const last = path.at(-1) as string;
  if (replacement === REMOVE) delete target[last];
  else target[last] = replacement;
  return copy;
}
const REMOVE = Symbol('remove');

function variants(): unknown[] {
  const out: unknown[] = [...VALID, null, [], 'request', 5, {}, { kind: 'nothing' }, { kind: 'toString' }, { kind: '__proto__' }];
  for (const valid of VALID) {
    out.push({ ...valid, unknownField: 1 });
    for (const path of paths(valid)) {
      out.push(withField(valid, path, REMOVE));
      for (const wrong of WRONG) out.push(withField(valid, path, wrong));
      for (const bound of BOUNDS[path.at(-1) as string] ?? []) out.push(withField(valid, path, bound));
    }
    for (const wrong of WRONG) out.push({ ...valid, kind: wrong });
  }
  return out;
}

/** What crosses a process boundary: JSON (undefined-valued keys vanish on the way). */
const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the zod-free envelope check agrees with the Envelope schema', () => {
  test('every kind, every field missing, wrong, at a bound or unknown', () => {
    const cases = variants();
    expect(cases.length).toBeGreaterThan(1000);
    for (const input of cases) {
      const expected = parseEnvelope(input);
      const actual = checkEnvelope(input);
      expect({ input, ok: actual.ok }).toEqual({ input, ok: expected.ok });
      if (actual.ok && expected.ok) expect(wire(actual.envelope)).toEqual(wire(expected.envelope));
      if (!actual.ok) expect(actual.error).toMatch(/^[\w.]+: /);
    }
  });

  test('random JSON-shaped values from a seed agree too', () => {
    const random = rng(20261201);
    const leaf = () => WRONG[Math.floor(random() * WRONG.length)];
    for (let i = 0; i < 3000; i++) {
      const base = structuredClone(VALID[Math.floor(random() * VALID.length)] as Record<string, unknown>);
      const all = paths(base);
      // Up to three fields changed at once.
      let value = base;
      for (let k = 0; k < 1 + Math.floor(random() * 3); k++) {
        const path = all[Math.floor(random() * all.length)];
        if (path) value = withField(value, path, random() < 0.2 ? REMOVE : leaf());
      }
      const expected = parseEnvelope(value);
      const actual = checkEnvelope(value);
      expect({ value, ok: actual.ok }).toEqual({ value, ok: expected.ok });
      if (actual.ok && expected.ok) expect(wire(actual.envelope)).toEqual(wire(expected.envelope));
    }
  });

  test('isRequestId is RequestId', () => {
    for (const value of [...WRONG, ...(BOUNDS.id ?? [])]) expect(isRequestId(value)).toBe(RequestId.safeParse(value).success);
  });
});
