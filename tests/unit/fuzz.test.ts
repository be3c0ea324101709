import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fuzzHost, startHostProcess } from '../support/fuzz';
import { CLI } from '../support/harness';

/**
 * A fixed-seed sample of the host fuzz (the bench runs 100,000 frames): the real `comet-relay host`
 * process, hostile frames on its real socket from 8 connections at once.
 */
const FRAMES = Number(process.env.FUZZ_FRAMES ?? 10_000);

describe('host fuzz (fixed seed)', () => {
  // Needs the built CLI (`npm test` builds before running the unit tests).
  it.skipIf(!fs.existsSync(CLI))(`${FRAMES} hostile frames: every one answered, the host never exits or wedges`, async () => {
    const host = await startHostProcess();
    try {
      const result = await fuzzHost(host, { seed: 20261130, frames: FRAMES });
      expect(result.firstProblem).toBeUndefined();
      expect(result).toMatchObject({ unanswered: 0, misrouted: 0, hostExited: false, healthyAfter: true });
      expect(result.frames).toBeGreaterThanOrEqual(FRAMES);
    } finally {
      await host.close();
    }
  }, 120_000);
});
