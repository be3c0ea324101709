// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { undoubleTitle } from '../../lib/page/conversations';
import { createPageDriver } from '../../lib/page/driver';
import { loadFixture } from '../fixtures/reader/load';

describe('conversations', () => {
  it('absolute URLs, each once, doubled titles fixed ("Rust vs GoRust vs Go")', async () => {
    loadFixture('A-thread.html', 'https://www.perplexity.ai/search/x');
    const { conversations } = await createPageDriver(window).conversations();
    expect(conversations).toEqual([
      { title: 'Rust vs Go', url: 'https://www.perplexity.ai/search/rust-vs-go-abc123' },
      { title: 'Quantum computing advances', url: 'https://www.perplexity.ai/search/quantum-computing-xyz' },
      { title: 'Book a table for two', url: 'https://www.perplexity.ai/computer/tasks/task-77' },
    ]);
  });

  it('library page: other sites\' /search/ links are not conversations', async () => {
    loadFixture('library.html', 'https://www.perplexity.ai/library');
    const { conversations } = await createPageDriver(window).conversations();
    expect(conversations).toEqual([
      { title: 'Alpha', url: 'https://www.perplexity.ai/search/alpha-1' },
      { title: 'Beta release notes', url: 'https://www.perplexity.ai/search/beta-2' },
    ]);
  });

  it('only exact repetitions are undone', () => {
    expect(undoubleTitle('Rust vs GoRust vs Go')).toBe('Rust vs Go');
    expect(undoubleTitle('Bora Bora')).toBe('Bora Bora');
    expect(undoubleTitle('aa')).toBe('aa');
  });
});
