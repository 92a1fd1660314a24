import { h } from './dom';

export type Fact = [label: string, value: Node | string];

/** Labelled values, as a description list; a `false` entry is left out. */
export function facts(entries: (Fact | false)[]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    entries
      .filter((entry): entry is Fact => entry !== false)
      .map(([label, value]) => [h('dt', {}, label), h('dd', {}, value)]),
  );
}
