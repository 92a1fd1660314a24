import { h } from './dom';

/** Characters of JSON shown before the rest is held back behind "Show all". */
export const JSON_PREVIEW_CHARS = 20_000;

/**
 * A value as indented JSON. A large one shows its first JSON_PREVIEW_CHARS characters, with a
 * button that shows all of it and a link that saves it as a file.
 */
export function jsonView(value: unknown, label: string, fileName = 'value.json'): HTMLElement {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  // Focusable so that a long one scrolls from the keyboard; a region, for a plain pre's label is not
  // announced (ARIA prohibits naming the generic role).
  const pre = h('pre', { class: 'json', tabindex: 0, role: 'region', 'aria-label': label });
  if (text.length <= JSON_PREVIEW_CHARS) {
    pre.textContent = text;
    return h('div', { class: 'json-view' }, pre);
  }
  pre.textContent = `${text.slice(0, JSON_PREVIEW_CHARS)}\n…`;
  const shown = h(
    'span',
    {},
    `Showing ${JSON_PREVIEW_CHARS.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters. `,
  );
  const showAll = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        pre.textContent = text;
        shown.remove();
        showAll.remove();
      },
    },
    'Show all',
  );
  const download = h(
    'a',
    { href: URL.createObjectURL(new Blob([text], { type: 'application/json' })), download: fileName },
    'Download JSON',
  );
  return h(
    'div',
    { class: 'json-view' },
    h('p', { class: 'json-truncated' }, shown, showAll, ' ', download),
    pre,
  );
}
