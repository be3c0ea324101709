/**
 * Radix-like dropdown menus (generation B's mode chip and model picker).
 *
 * Like Radix on Chromium 153+, the trigger opens only after a full pointer sequence on it
 * (pointerdown, mousedown, pointerup, mouseup, click) or from the keyboard (Enter, Space, ArrowDown).
 * A bare `el.click()` or a lone synthetic click event does nothing. Items select on any click.
 *
 * As on the live page of Sep 2026 (lib/selectors/README.md, "Mode controls"; capture
 * mode-menu-open-…-2026-09-24): the menu is portalled to the end of <body>, the trigger names it in
 * `aria-controls` only while it is open, and a shut menu stays in the DOM, `data-state="closed"`
 * (hidden), until the next opening replaces it: a reader must take only an open one.
 */
import { h, radixId, tr } from './dom';

const FULL_SEQUENCE = 'pointerdown,mousedown,pointerup,mouseup';

/** The last menu shut, of any dropdown, left in the DOM as the live page leaves it (one at a time). */
let shut: HTMLElement | null = null;

export interface Dropdown {
  close(): void;
  readonly open: boolean;
}

export function radixDropdown(
  trigger: HTMLButtonElement,
  build: (menu: HTMLElement, close: () => void) => void,
  align: 'start' | 'end' = 'start',
): Dropdown {
  const triggerId = trigger.id || radixId();
  const menuId = radixId();
  trigger.id = triggerId;
  trigger.type = 'button';
  trigger.setAttribute('aria-haspopup', 'menu');
  trigger.setAttribute('aria-expanded', 'false');
  trigger.setAttribute('data-state', 'closed');

  let wrapper: HTMLElement | null = null;
  let seq: string[] = [];

  const onOutside = (e: Event) => {
    const t = e.target as Node;
    if (wrapper?.contains(t) || trigger.contains(t)) return;
    close();
  };

  function close(): void {
    if (!wrapper) return;
    wrapper.querySelector('[role="menu"]')?.setAttribute('data-state', 'closed');
    wrapper.hidden = true;
    shut?.remove();
    shut = wrapper;
    wrapper = null;
    trigger.setAttribute('aria-expanded', 'false');
    trigger.setAttribute('data-state', 'closed');
    trigger.removeAttribute('aria-controls');
    document.removeEventListener('pointerdown', onOutside, true);
  }

  function items(): HTMLElement[] {
    return wrapper ? [...wrapper.querySelectorAll<HTMLElement>('[role^="menuitem"]')] : [];
  }

  function open(focusFirst: boolean): void {
    if (wrapper) return;
    const menu = h('div', {
      role: 'menu',
      id: menuId,
      'aria-labelledby': triggerId,
      'aria-orientation': 'vertical',
      'data-state': 'open',
      'data-side': 'bottom',
      'data-align': align,
      tabindex: '-1',
      dir: tr.dir,
      class: 'menu',
    });
    build(menu, () => {
      close();
      trigger.focus();
    });
    shut?.remove();
    shut = null;
    wrapper = h('div', { 'data-radix-popper-content-wrapper': '', dir: tr.dir }, menu);
    document.body.append(wrapper);
    trigger.setAttribute('aria-controls', menuId);
    const r = trigger.getBoundingClientRect();
    const below = r.bottom + 6;
    const height = menu.offsetHeight;
    const top = below + height > window.innerHeight && r.top - 6 - height > 0 ? r.top - 6 - height : below;
    menu.style.top = `${Math.round(top)}px`;
    if (align === 'end') menu.style.left = `${Math.round(Math.max(8, r.right - menu.offsetWidth))}px`;
    else menu.style.left = `${Math.round(r.left)}px`;
    trigger.setAttribute('aria-expanded', 'true');
    trigger.setAttribute('data-state', 'open');
    document.addEventListener('pointerdown', onOutside, true);
    menu.addEventListener('keydown', (e) => {
      const list = items();
      const i = list.indexOf(document.activeElement as HTMLElement);
      if (e.key === 'Escape') {
        e.preventDefault();
        close();
        trigger.focus();
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = list.length;
        const next = list[(i + (e.key === 'ArrowDown' ? 1 : n - 1) + (i < 0 ? n : 0)) % n];
        next?.focus();
      } else if ((e.key === 'Enter' || e.key === ' ') && i >= 0) {
        e.preventDefault();
        list[i]?.click();
      }
    });
    if (focusFirst) (items().find((x) => x.getAttribute('aria-checked') === 'true') ?? items()[0])?.focus();
    else menu.focus();
  }

  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup'] as const) {
    trigger.addEventListener(type, (e) => {
      if ((e as MouseEvent).button !== 0) return;
      if (type === 'pointerdown') seq = [];
      seq.push(type);
    });
  }
  trigger.addEventListener('click', () => {
    const full = seq.join(',') === FULL_SEQUENCE;
    seq = [];
    if (!full) return; // a bare .click(): Radix on Chromium 153+ ignores it
    if (wrapper) close();
    else open(false);
  });
  trigger.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowDown') {
      e.preventDefault();
      if (wrapper) close();
      else open(true);
    }
  });

  return {
    close,
    get open() {
      return wrapper !== null;
    },
  };
}
