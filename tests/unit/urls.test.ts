import { describe, expect, it } from 'vitest';
import { checkPerplexityUrl, pageKindOf } from '../../lib/protocol/urls';
import { HOSTILE_URLS as HOSTILE } from '../support/hostile-urls';

/** comet_open_conversation's SSRF guard: only https on perplexity.ai or a subdomain, nothing else. */


describe('checkPerplexityUrl', () => {
  it.each(HOSTILE)('rejects %s', (url) => {
    const check = checkPerplexityUrl(url);
    if (check.ok) expect.fail(`accepted ${url} as ${check.url}`);
    expect(check.reason.length).toBeGreaterThan(5);
  });

  it.each([
    ['https://www.perplexity.ai/search/x-1', 'https://www.perplexity.ai/search/x-1'],
    ['https://perplexity.ai/', 'https://perplexity.ai/'],
    ['https://WWW.Perplexity.AI/library', 'https://www.perplexity.ai/library'],
    ['https://www.perplexity.ai:443/search/y', 'https://www.perplexity.ai/search/y'],
    ['  https://www.perplexity.ai/computer/tasks/abc  ', 'https://www.perplexity.ai/computer/tasks/abc'],
  ])('accepts %s', (input, normalised) => {
    expect(checkPerplexityUrl(input)).toEqual({ ok: true, url: normalised });
  });
});

describe('pageKindOf: a page named for sharing (review 2026-12-04 #16)', () => {
  it.each([
    ['https://www.perplexity.ai/search/what-are-the-side-effects-of-drug-x-AbCd', 'https://www.perplexity.ai/search/…'],
    ['https://www.perplexity.ai/computer/tasks/0f8fad5b?x=1#y', 'https://www.perplexity.ai/computer/tasks/…'],
    ['https://www.perplexity.ai/', 'https://www.perplexity.ai/'],
    ['https://www.perplexity.ai/library', 'https://www.perplexity.ai/library'],
    ['not a url', 'a Perplexity page'],
  ])('%s → %s', (url, kind) => {
    expect(pageKindOf(url)).toBe(kind);
  });
});
