import { link, type PageContext } from '../context';
import { h } from '../dom';

/**
 * #/batches: a batch opened by its id. The service lists no batches (a batch is found from what
 * made it, or from any of its executions, whose page links to it), so this page only asks which.
 */
export function batchesPage(context: PageContext): HTMLElement {
  const heading = context.title('Batches');
  const input = h('input', { id: 'batch-id', name: 'batch_id', type: 'text', required: true });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Open a batch' },
    h('div', { class: 'field' }, h('label', { for: 'batch-id' }, 'Batch id'), input),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open batch')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = input.value.trim();
    if (id) context.navigate(link('batches', id));
  });
  return h(
    'section',
    { class: 'page' },
    heading,
    h(
      'p',
      { class: 'lead' },
      'A batch starts many executions in one request (POST /batches, client.batch, skillrun invoke --batch). Open one by the batch_id it answered; an execution of a batch links to it too.',
    ),
    form,
  );
}
