import { ApiError, query } from '../api';
import { askToCancel } from '../cancel-confirmation';
import { every, link, mayInvoke, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { facts } from '../facts';
import { shortId, time } from '../format';
import type { BatchView } from '../protocol';
import { statusBadge } from '../status-badge';

const POLL_MS = 2000;
const STATUSES = [
  'awaiting_approval',
  'accepted',
  'running',
  'completed',
  'failed',
  'timeout',
  'canceled',
] as const;

/**
 * #/batches/{id}: one batch (POST /batches), read every 2 s until every execution of it has ended:
 * its counts by status, what it holds, and its executions in the items' order, each linking to its
 * page; with _Cancel batch…_ while some have not ended, for a caller who may invoke. A poll rather
 * than `Prefer: wait`: the wait answers only once all have ended, and the counts move before that.
 */
export function batchPage(context: PageContext): HTMLElement {
  const [batchId = ''] = context.params;
  const heading = context.title(`Batch ${batchId}`);
  const path = `/batches/${encodeURIComponent(batchId)}`;
  const live = h('p', { class: 'live', role: 'status' }, `Live: read every ${POLL_MS / 1000} s.`);
  const body = h('div', { 'aria-busy': 'true' });
  const ended = new AbortController();
  let loading = false;

  async function load(): Promise<void> {
    if (loading) return;
    loading = true;
    try {
      render(await context.api.request<BatchView>(path, { signal: context.signal }));
    } catch (error) {
      if (context.signal.aborted) return;
      replace(body, errorView(error));
      // Not there, or no longer allowed: reading again will not change that.
      if (error instanceof ApiError && (error.status === 404 || error.status === 401)) ended.abort();
    } finally {
      loading = false;
    }
  }

  const cancel = cancelControl(context, path, (view) => render(view));

  function render(view: BatchView): void {
    body.setAttribute('aria-busy', 'false');
    cancel.hidden = view.ended || !mayInvoke(context.me);
    if (view.ended) {
      live.textContent = 'Ended: every execution of the batch has ended.';
      ended.abort();
    }
    const finished = view.executions.length - view.counts.accepted - view.counts.running;
    replace(
      body,
      h(
        'p',
        { class: 'headline' },
        h('label', { for: 'batch-progress' }, `${finished} of ${view.executions.length} ended `),
        h('progress', { id: 'batch-progress', max: Math.max(1, view.executions.length), value: finished }),
      ),
      h(
        'ul',
        { class: 'batch-counts', 'aria-label': 'Executions by status' },
        STATUSES.map((status) =>
          h('li', { 'data-status': status }, statusBadge(status), ` ${view.counts[status]}`),
        ),
      ),
      facts([
        ['Caller', `${view.caller.id} (${view.caller.type})`],
        ['Created', time(view.created_at)],
        ['Items', String(view.items)],
        ['Executions', String(view.executions.length)],
        [
          'In the list',
          h(
            'a',
            { href: `#/executions${query({ batch_id: view.batch_id })}` },
            'Its executions, with their durations and filters',
          ),
        ],
      ]),
      h('h2', {}, 'Executions'),
      view.executions.length === 0
        ? h('p', { class: 'empty' }, 'None: no item started one, or they have expired.')
        : h(
            'table',
            { class: 'batch-executions' },
            h('caption', { class: 'visually-hidden' }, "The batch's executions, in the items' order"),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['#', 'Execution', 'Skill', 'Status'].map((label) => h('th', { scope: 'col' }, label)),
              ),
            ),
            h(
              'tbody',
              {},
              view.executions.map((execution, index) =>
                h(
                  'tr',
                  { 'data-execution-id': execution.execution_id },
                  h('td', {}, String(index + 1)),
                  h(
                    'td',
                    {},
                    h(
                      'a',
                      {
                        href: link('executions', execution.skill_id, execution.execution_id),
                        class: 'mono',
                      },
                      shortId(execution.execution_id),
                    ),
                  ),
                  h('td', {}, execution.skill_id),
                  h('td', {}, statusBadge(execution.status)),
                ),
              ),
            ),
          ),
    );
  }

  void load();
  every(AbortSignal.any([context.signal, ended.signal]), POLL_MS, () => void load());
  return h('section', { class: 'page' }, heading, live, cancel, body);
}

/**
 * _Cancel batch…_, then a confirmation: POST /batches/{id}/cancel cancels every execution of it
 * that has not ended. Made once, so that the page's reads do not undo a confirmation under way.
 */
function cancelControl(context: PageContext, path: string, canceled: (view: BatchView) => void): HTMLElement {
  const area = h('div', { class: 'bulk-cancel', 'aria-live': 'polite', hidden: true });
  const offer = () =>
    replace(area, h('button', { type: 'button', class: 'danger', onclick: ask }, 'Cancel batch…'));
  const ask = () =>
    askToCancel(area, 'Cancel every execution of this batch that has not ended?', cancelAll, offer);
  async function cancelAll(): Promise<void> {
    replace(area, h('p', { role: 'status' }, 'Canceling…'));
    try {
      const view = await context.api.request<BatchView>(`${path}/cancel`, { method: 'POST' });
      offer();
      canceled(view);
    } catch (error) {
      offer();
      area.prepend(errorView(error));
    }
  }
  offer();
  return area;
}
