import { h } from './dom';

/** An execution's status as a coloured label (the colour repeats the word, never replaces it). */
export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `status status-${status}` }, status);
}
