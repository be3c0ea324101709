// @vitest-environment happy-dom
import { h, render } from 'preact';
import { describe, expect, it } from 'vitest';
import { ErrorLine } from '../../components/common/ErrorLine';

/** The one error line every panel control shows under itself when its last action failed. */
describe('ErrorLine', () => {
  const draw = (props: Parameters<typeof ErrorLine>[0]) => {
    const root = document.createElement('div');
    render(h(ErrorLine, props), root);
    return root;
  };

  it('draws nothing while there is no error', () => {
    expect(draw({ error: undefined }).innerHTML).toBe('');
    expect(draw({ error: '' }).innerHTML).toBe('');
  });

  it('says the error as an alert line, with its test id where one is given', () => {
    const line = draw({ error: '[E_TIMEOUT] the page did not answer', testId: 'mode-error' }).firstElementChild;
    expect(line?.tagName).toBe('P');
    expect(line?.className).toBe('error');
    expect(line?.getAttribute('role')).toBe('alert');
    expect(line?.getAttribute('data-testid')).toBe('mode-error');
    expect(line?.textContent).toBe('[E_TIMEOUT] the page did not answer');
  });

  it('stays in the row of an inline form', () => {
    const line = draw({ error: 'name too long', inline: true }).firstElementChild;
    expect(line?.tagName).toBe('SPAN');
    expect(line?.hasAttribute('data-testid')).toBe(false);
  });
});
