import type { BulkCancelResult } from '@skillrun/client';
import { query } from '../api';
import { askToCancel } from '../cancel-confirmation';
import { every, link, mayInvoke, type PageContext, seesEveryone } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { readEventStream } from '../event-stream';
import { duration, queueWait, rfc3339, runTime, shortId, time, usd } from '../format';
import type { Execution, ExecutionPage } from '../protocol';
import { statusBadge } from '../status-badge';

const STATUSES = ['awaiting_approval', 'accepted', 'running', 'completed', 'failed', 'timeout', 'canceled'];
const PAGE_SIZE = 25;
const POLL_MS = 3000;

/** The address's `metadata.<key>=<value>` filter (the service's own form), as `key=value`. */
function metadataPair(params: URLSearchParams): { name: string; value: string } | undefined {
  for (const [name, value] of params) {
    if (name.startsWith('metadata.')) return { name, value };
  }
  return undefined;
}

/**
 * #/executions: the executions the caller may see (an admin: everyone's), newest first, filtered
 * by skill, version, status, caller, schedule, batch, tags, a metadata value and creation time (the filters live in the
 * address, so a filtered list can be bookmarked), a page at a time. It stays current without a reload: the
 * caller's live event stream (`GET /executions/events`) says when to read the page again; an
 * admin watching every caller polls. A stream of every caller's changes would have each change of
 * every execution in the system appended to the notifications stream (and read back) while the page
 * is open, a cost that grows with the load for a page of 25 rows; a poll costs the same at any load.
 */
export function executionsPage(context: PageContext): HTMLElement {
  const { query: params } = context;
  const admin = seesEveryone(context.me);
  const heading = context.title('Executions');
  const statuses = new Set((params.get('status') ?? '').split(',').filter(Boolean));
  const metadata = metadataPair(params);
  const textField = (name: string, label: string, value: string | null, type = 'text') =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: `filter-${name}` }, label),
      h('input', { id: `filter-${name}`, name, type, value: value ?? '' }),
    );
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter executions' },
    textField('skill_id', 'Skill', params.get('skill_id')),
    textField('version', 'Version (a semver range)', params.get('version')),
    admin ? textField('caller_id', 'Caller', params.get('caller_id')) : '',
    textField('schedule_id', 'Schedule id', params.get('schedule_id')),
    textField('batch_id', 'Batch id', params.get('batch_id')),
    textField('tag', 'Tags (comma-separated)', params.get('tag')),
    h(
      'label',
      { class: 'check' },
      h('input', {
        type: 'checkbox',
        name: 'tag_match',
        value: 'any',
        checked: params.get('tag_match') === 'any',
      }),
      ' any of the tags (not all)',
    ),
    textField(
      'metadata',
      'Metadata (key=value)',
      metadata ? `${metadata.name.slice('metadata.'.length)}=${metadata.value}` : null,
    ),
    textField('since', 'Created since', params.get('since'), 'datetime-local'),
    textField('until', 'Created until', params.get('until'), 'datetime-local'),
    h(
      'fieldset',
      { class: 'statuses' },
      h('legend', {}, 'Status'),
      STATUSES.map((status) =>
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'status', value: status, checked: statuses.has(status) }),
          ` ${status}`,
        ),
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('a', { href: '#/executions', class: 'button secondary' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const next = new URLSearchParams();
    for (const name of ['skill_id', 'version', 'caller_id', 'schedule_id', 'batch_id', 'since', 'until']) {
      const value = String(data.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    const tags = String(data.get('tag') ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
    if (tags.length) next.set('tag', tags.join(','));
    if (tags.length > 1 && data.get('tag_match') === 'any') next.set('tag_match', 'any');
    const pair = String(data.get('metadata') ?? '').trim();
    const at = pair.indexOf('=');
    if (at > 0) next.set(`metadata.${pair.slice(0, at).trim()}`, pair.slice(at + 1).trim());
    const checked = data.getAll('status').map(String);
    if (checked.length) next.set('status', checked.join(','));
    const text = next.toString();
    context.navigate(`#/executions${text ? `?${text}` : ''}`);
  });

  /** The filters in the address, as the service takes them. */
  const filter = () => ({
    skill_id: params.get('skill_id') ?? undefined,
    version: params.get('version') ?? undefined,
    status: params.get('status') ?? undefined,
    caller_id: admin ? (params.get('caller_id') ?? undefined) : undefined,
    schedule_id: params.get('schedule_id') ?? undefined,
    batch_id: params.get('batch_id') ?? undefined,
    tag: params.get('tag') ?? undefined,
    tag_match: params.get('tag_match') ?? undefined,
    ...(metadata ? { [metadata.name]: metadata.value } : {}),
    since: rfc3339(params.get('since')),
    until: rfc3339(params.get('until')),
  });

  const live = h('p', { class: 'live', role: 'status' }, '');
  const results = h('div', { class: 'results', 'aria-live': 'polite', 'aria-busy': 'true' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const cursors: (string | undefined)[] = [undefined];
  let page = 0;
  let loading: Promise<void> | undefined;
  let again = false;

  async function load(): Promise<void> {
    const answer = await context.api.request<ExecutionPage>(
      `/executions${query({ ...filter(), limit: PAGE_SIZE, cursor: cursors[page] })}`,
      { signal: context.signal },
    );
    const shown = answer.executions;
    cursors[page + 1] = answer.next_cursor ?? undefined;
    replace(results, shown.length === 0 ? h('p', { class: 'empty' }, 'No executions match.') : table(shown));
    results.setAttribute('aria-busy', 'false');
    replace(
      pager,
      h('button', { type: 'button', disabled: page === 0, onclick: () => turn(page - 1) }, 'Previous page'),
      h('span', {}, ` Page ${page + 1} `),
      h(
        'button',
        { type: 'button', disabled: !answer.next_cursor, onclick: () => turn(page + 1) },
        'Next page',
      ),
    );
  }

  function refresh(): void {
    if (loading) {
      again = true;
      return;
    }
    loading = load()
      .catch((error: unknown) => {
        if (!context.signal.aborted) replace(results, errorView(error));
      })
      .finally(() => {
        results.setAttribute('aria-busy', 'false');
        loading = undefined;
        if (again && !context.signal.aborted) {
          again = false;
          refresh();
        }
      });
  }

  function turn(to: number): void {
    page = to;
    refresh();
  }

  function table(executions: Execution[]): HTMLElement {
    const now = Date.now();
    return h(
      'table',
      { class: 'executions' },
      h('caption', { class: 'visually-hidden' }, 'Executions, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [
            'Execution',
            'Skill',
            'Version',
            'Status',
            'Created',
            'Queue wait',
            'Run time',
            'Cost',
            'Attempts',
            'Worker',
            'Tags',
            'Caller',
          ].map((label) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        {},
        executions.map((execution) =>
          h(
            'tr',
            { 'data-execution-id': execution.execution_id },
            h(
              'td',
              {},
              h(
                'a',
                { href: link('executions', execution.skill_id, execution.execution_id), class: 'mono' },
                shortId(execution.execution_id),
              ),
            ),
            h('td', {}, execution.skill_id),
            h('td', {}, execution.skill_version),
            h('td', {}, statusBadge(execution.status)),
            h('td', {}, time(execution.timestamps.created_at)),
            h('td', {}, duration(queueWait(execution, now))),
            h('td', {}, duration(runTime(execution, now))),
            h('td', {}, usd(execution.usage?.cost_usd)),
            h('td', {}, `${execution.attempts}/${execution.max_attempts}`),
            h('td', { class: 'mono' }, execution.worker_id ?? '–'),
            h('td', { class: 'tags' }, execution.tags?.join(', ') ?? '–'),
            h('td', {}, execution.caller.id),
          ),
        ),
      ),
    );
  }

  /** The caller's changes as they happen; reading the page again on each (a burst reads it once). */
  async function follow(): Promise<void> {
    const caller = admin ? (params.get('caller_id') ?? undefined) : undefined;
    if (admin && caller === undefined) {
      live.textContent = `Live: every caller's executions, read every ${POLL_MS / 1000} s.`;
      every(context.signal, POLL_MS, refresh);
      return;
    }
    let lastEventId: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    while (!context.signal.aborted) {
      try {
        live.textContent = 'Live: changes arrive as they happen.';
        await readEventStream(
          context.api,
          `/executions/events${query({ caller_id: caller })}`,
          (event) => {
            if (event.id) lastEventId = event.id;
            clearTimeout(timer);
            timer = setTimeout(refresh, 150);
          },
          context.signal,
          lastEventId,
        );
      } catch {
        if (context.signal.aborted) return;
        live.textContent = `Live: the event stream is unavailable; read every ${POLL_MS / 1000} s.`;
        every(context.signal, POLL_MS, refresh);
        return;
      }
    }
  }

  /**
   * Cancels every execution the filters find that has not ended (POST /executions/cancel, page
   * after page), once the person confirms: theirs, or for an admin anyone's.
   */
  function bulkCancel(): HTMLElement {
    const area = h('div', { class: 'bulk-cancel', 'aria-live': 'polite' });
    const offer = () =>
      replace(
        area,
        h('button', { type: 'button', class: 'secondary', onclick: ask }, 'Cancel matching executions…'),
      );
    const ask = () =>
      askToCancel(
        area,
        `Cancel every execution these filters find that has not ended (${admin ? "anyone's" : 'yours'})?`,
        cancelAll,
        offer,
      );
    async function cancelAll(): Promise<void> {
      replace(area, h('p', { role: 'status' }, 'Canceling…'));
      let canceled = 0;
      try {
        let cursor: string | undefined;
        do {
          const answer: BulkCancelResult = await context.api.request<BulkCancelResult>('/executions/cancel', {
            method: 'POST',
            json: { ...filter(), limit: 1000, cursor },
          });
          canceled += answer.canceled;
          cursor = answer.next_cursor ?? undefined;
        } while (cursor !== undefined && !context.signal.aborted);
      } catch (error) {
        replace(area, errorView(error));
        return;
      }
      replace(
        area,
        h(
          'p',
          { class: 'notice', role: 'status' },
          `Canceled ${canceled} execution${canceled === 1 ? '' : 's'}.`,
        ),
      );
      refresh();
    }
    offer();
    return area;
  }

  refresh();
  void follow();
  return h(
    'section',
    { class: 'page' },
    heading,
    form,
    mayInvoke(context.me) ? bulkCancel() : '',
    live,
    results,
    pager,
  );
}
