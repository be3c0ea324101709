import { describe, expect, it } from 'vitest';
import { questionKey, questionMatch } from '../../lib/page/answer/question';

/**
 * A question is known by what the page's Markdown renderer leaves of it (Sep 2026: the question bubble is the answer's
 * renderer; review 13a, Q1), and never by less (review 13d, 3: a key of letters and digits alone made C++ and C# one
 * question, dropped Hindi's vowel signs, and gave an emoji-only prompt an empty key that every turn matched).
 */
describe('questionKey', () => {
  it('the typed prompt and the page’s drawing of it are one question', () => {
    const typed = 'Which branch does `git init` create by **default**? See [the docs](https://git-scm.com/docs):\n1. one word\n- ~~two~~ no more';
    const drawn = 'Which branch does git init create by default? See the docs:\none word\ntwo no more';
    expect(questionKey(typed)).toBe(questionKey(drawn));
    expect(questionMatch(drawn, questionKey(typed))).toBe('same');
  });

  it('what the renderer keeps tells questions apart: symbols, marks, emoji', () => {
    expect(questionMatch('Compare C# and Rust for embedded firmware', questionKey('Compare C++ and Rust for embedded firmware'))).toBe('different');
    expect(questionMatch('भारत की राजधानी कौन सी है और क्यों?', questionKey('भारत कि राजधानी कौन सी है और क्यों?'))).toBe('different');
    expect(questionKey('🤔❓')).not.toBe('');
    expect(questionKey('2+3')).not.toBe(questionKey('2*3'));
  });
});
