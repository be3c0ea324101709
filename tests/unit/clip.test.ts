import { describe, expect, it } from 'vitest';
import { clip, cut } from '../../lib/protocol/text/clip';
import type { Request } from '../../lib/protocol/messages';
import { describeTabUse } from '../../lib/worker/calls/other-tabs';
import { ThreadBook } from '../../lib/worker/panel/threads';

/** Half of a character written as two: what a cut through an emoji leaves, drawn as U+FFFD. */
const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const emojiAtTheCut = (at: number) => `${'a'.repeat(at)}😀 and more words after it`;

describe('text cut to a length (one rule, review 15a F4)', () => {
  it('keeps what fits, cuts the rest with "…" and never through an emoji', () => {
    expect(cut('short', 10)).toBe('short');
    expect(cut('abcdefghijk', 5)).toBe('abcd…');
    for (let at = 0; at < 8; at++) {
      const text = cut(emojiAtTheCut(at), 6);
      expect(text.length).toBeLessThanOrEqual(6);
      expect(lone.test(text)).toBe(false);
    }
  });

  it('clip folds whitespace to one line first', () => {
    expect(clip('  a\n\n b\tc  ', 20)).toBe('a b c');
  });

  it("the side panel's card title and a refusal's tab title keep an emoji whole (they had copies of their own)", () => {
    const book = new ThreadBook();
    const request = { kind: 'request', id: 'r1', method: 'page.ask', params: { prompt: emojiAtTheCut(118) }, origin: { tool: 'comet_ask', client: 'Claude Code' } } as unknown as Request;
    book.onCall({ phase: 'start', request, at: 1 });
    const title = book.list()[0]?.title ?? '';
    expect(title.endsWith('…')).toBe(true);
    expect(lone.test(title)).toBe(false);

    const sentence = describeTabUse('read', { id: 1, index: 0, highlighted: false, active: false, pinned: false, incognito: false, title: emojiAtTheCut(78), url: 'https://example.com/' });
    expect(sentence).toContain('…');
    expect(lone.test(sentence)).toBe(false);
  });
});
