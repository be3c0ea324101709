// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { renderText } from '../../lib/page/dom/text';

/**
 * Reading an answer must cost in proportion to its size: the Writer once re-scanned everything written so far on
 * every block, so a 420 kB answer held the Perplexity tab for 13 s (review of 2026-12-02, #8). This holds the
 * shape of the curve, not a time: four times the text may take at most about four times as long (a quadratic
 * writer takes sixteen). Medians of several runs, each size timed alternately, so a busy machine slows both alike.
 */
function answerOf(paragraphs: number): HTMLElement {
  const root = document.createElement('div');
  const words = 'the quick brown fox jumps over the lazy dog and keeps on running through the field ';
  let html = '';
  for (let i = 0; i < paragraphs; i++) {
    html += i % 10 === 0 ? `<h2>Section ${i}</h2><ul><li>${words}</li><li>${words}</li></ul>` : `<p>${words}<code>x${i}</code> ${words}</p>`;
  }
  root.innerHTML = html;
  return root;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

describe('renderText cost', () => {
  it('grows linearly with the answer: 4× the text costs well under 16× the time', () => {
    const small = answerOf(500);
    const large = answerOf(2000);
    const options = { skip: [], markdown: true } as const;
    const smallText = renderText(small, options);
    const largeText = renderText(large, options);
    expect(largeText.length).toBeGreaterThan(3.9 * smallText.length);
    expect(largeText.length).toBeGreaterThan(300_000);
    const timesSmall: number[] = [];
    const timesLarge: number[] = [];
    for (let run = 0; run < 7; run++) {
      let t = performance.now();
      renderText(small, options);
      timesSmall.push(performance.now() - t);
      t = performance.now();
      renderText(large, options);
      timesLarge.push(performance.now() - t);
    }
    const ratio = median(timesLarge) / Math.max(median(timesSmall), 0.01);
    expect(ratio, `4× the text took ${ratio.toFixed(1)}× the time (linear ≈ 4, quadratic ≈ 16)`).toBeLessThan(9);
  });

  it('keeps the line structure the old writer made', () => {
    const root = document.createElement('div');
    root.innerHTML = '<p>one  </p><p>two</p><ul><li>a<br>b</li><li><pre>x\n\n y</pre></li></ul><h3>End </h3>   ';
    expect(renderText(root, { skip: [], markdown: true })).toBe('one\n\ntwo\n\n- a\n  b\n-\n  ```\n  x\n\n   y\n  ```\n\n### End');
  });
});
