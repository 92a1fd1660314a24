import { every, type PageContext } from './context';
import { type Children, h, replace } from './dom';
import { errorView } from './error-view';

/**
 * A page that shows what `read` renders, read now and again every `ms` while the page is open (and
 * the tab visible), and says so. An error shows in its place, unless it is the page closing.
 */
export function polledPage(
  context: PageContext,
  title: string,
  ms: number,
  read: (signal: AbortSignal) => Promise<Children>,
): HTMLElement {
  const heading = context.title(title);
  const results = h('div', { class: 'results', 'aria-live': 'polite' });

  async function load(): Promise<void> {
    try {
      replace(results, await read(context.signal));
    } catch (error) {
      if (!context.signal.aborted) replace(results, errorView(error));
    }
  }

  void load();
  every(context.signal, ms, () => void load());
  return h(
    'section',
    { class: 'page' },
    heading,
    h('p', { class: 'live' }, `Read again every ${ms / 1000} s.`),
    results,
  );
}
