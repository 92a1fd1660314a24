import { h, replace } from './dom';

/**
 * A bulk cancel's confirmation, in `area`: `question`, then _Cancel them_ (which runs `cancel`) or
 * _Keep them_ (which goes back to `keep`).
 */
export function askToCancel(
  area: HTMLElement,
  question: string,
  cancel: () => Promise<void>,
  keep: () => void,
): void {
  replace(
    area,
    h('p', { class: 'notice notice-warning' }, question),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'danger', onclick: () => void cancel() }, 'Cancel them'),
      h('button', { type: 'button', class: 'secondary', onclick: keep }, 'Keep them'),
    ),
  );
}
