// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { undoubleTitle } from '../../lib/page/kits/conversations';
import { createPageDriver } from '../../lib/page/driver';
import { loadFixture, loadHtml } from '../fixtures/reader/load';
import { conversationsThrough } from '../../lib/page/kits/panel-kit';

describe('conversations', () => {
  it('absolute URLs, each once, doubled titles fixed ("Rust vs GoRust vs Go")', async () => {
    loadFixture('A-thread.html', 'https://www.perplexity.ai/search/x');
    const { conversations } = await conversationsThrough(createPageDriver(window));
    expect(conversations).toEqual([
      { title: 'Rust vs Go', url: 'https://www.perplexity.ai/search/rust-vs-go-abc123' },
      { title: 'Quantum computing advances', url: 'https://www.perplexity.ai/search/quantum-computing-xyz' },
      { title: 'Book a table for two', url: 'https://www.perplexity.ai/computer/tasks/task-77' },
    ]);
  });

  it('library page: other sites\' /search/ links are not conversations', async () => {
    loadFixture('library.html', 'https://www.perplexity.ai/library');
    const { conversations } = await conversationsThrough(createPageDriver(window));
    expect(conversations).toEqual([
      { title: 'Alpha', url: 'https://www.perplexity.ai/search/alpha-1' },
      { title: 'Beta release notes', url: 'https://www.perplexity.ai/search/beta-2' },
    ]);
  });

  it('a Perplexity link that only mentions /search/ somewhere in its path is not a conversation', async () => {
    loadHtml(
      '<nav><a href="/search/real-1">Real</a><a href="/hub/search/tips">Tips</a><a href="/help/copilot/">Help</a>' +
        '<a href="/computer/tasks/">Tasks</a></nav><div id="ask-input" contenteditable="true"></div>',
      'https://www.perplexity.ai/',
    );
    const { conversations } = await conversationsThrough(createPageDriver(window));
    expect(conversations).toEqual([{ title: 'Real', url: 'https://www.perplexity.ai/search/real-1' }]);
  });

  it('only exact repetitions are undone', () => {
    expect(undoubleTitle('Rust vs GoRust vs Go')).toBe('Rust vs Go');
    expect(undoubleTitle('Bora Bora')).toBe('Bora Bora');
    expect(undoubleTitle('aa')).toBe('aa');
  });
});
