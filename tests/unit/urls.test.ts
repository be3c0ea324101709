import { describe, expect, it } from 'vitest';
import { checkPerplexityUrl } from '../../lib/protocol/urls';
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
