import { query } from '../api';
import type { PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { rfc3339, time } from '../format';
import type { AuditPage, AuditRecord } from '../protocol';

const PAGE_SIZE = 50;
const OUTCOMES = ['succeeded', 'refused', 'failed', 'unknown'];
const FILTERS = ['actor', 'action', 'outcome', 'since', 'until'];

/**
 * #/audit (admins): the audit log, newest first, filtered by actor, action, outcome and time (the
 * filters live in the address, so a filtered log can be bookmarked), a page at a time. Not polled:
 * it is read when asked (the filters applied, a page turned).
 */
export function auditPage(context: PageContext): HTMLElement {
  const { query: params } = context;
  const heading = context.title('Audit log');
  const field = (name: string, label: string, input: HTMLElement) =>
    h('div', { class: 'field' }, h('label', { for: `filter-${name}` }, label), input);
  const text = (name: string, type = 'text', placeholder = '') =>
    h('input', { id: `filter-${name}`, name, type, value: params.get(name) ?? '', placeholder });
  const outcome = h(
    'select',
    { id: 'filter-outcome', name: 'outcome' },
    h('option', { value: '' }, 'any'),
    OUTCOMES.map((each) => h('option', { value: each, selected: params.get('outcome') === each }, each)),
  );
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter the audit log' },
    field('actor', 'Actor (caller id)', text('actor')),
    field('action', 'Action', text('action', 'text', 'key.create, skill.pause, …')),
    field('outcome', 'Outcome', outcome),
    field('since', 'Since', text('since', 'datetime-local')),
    field('until', 'Until', text('until', 'datetime-local')),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('a', { href: '#/audit', class: 'button secondary' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(data.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    const search = next.toString();
    context.navigate(`#/audit${search ? `?${search}` : ''}`);
  });

  const filter = {
    actor: params.get('actor') ?? undefined,
    action: params.get('action') ?? undefined,
    outcome: params.get('outcome') ?? undefined,
    since: rfc3339(params.get('since')),
    until: rfc3339(params.get('until')),
  };
  const results = h('div', { class: 'results', 'aria-live': 'polite', 'aria-busy': 'true' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const cursors: (string | undefined)[] = [undefined];

  async function show(page: number): Promise<void> {
    results.setAttribute('aria-busy', 'true');
    try {
      const answer = await context.api.request<AuditPage>(
        `/audit${query({ ...filter, limit: PAGE_SIZE, cursor: cursors[page] })}`,
        { signal: context.signal },
      );
      cursors[page + 1] = answer.next_cursor ?? undefined;
      replace(
        results,
        answer.records.length === 0
          ? h('p', { class: 'empty' }, 'No audit records match.')
          : table(answer.records),
      );
      replace(
        pager,
        h('button', { type: 'button', disabled: page === 0, onclick: () => show(page - 1) }, 'Newer'),
        h('span', {}, ` Page ${page + 1} `),
        h(
          'button',
          { type: 'button', disabled: !answer.next_cursor, onclick: () => show(page + 1) },
          'Older',
        ),
      );
    } catch (error) {
      if (!context.signal.aborted) replace(results, errorView(error));
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }
  void show(0);
  return h(
    'section',
    {},
    heading,
    h(
      'p',
      { class: 'hint' },
      'Every administrative act, refusals included: who, when, what, from where, and how it ended.',
    ),
    form,
    results,
    pager,
  );
}

function table(records: AuditRecord[]): HTMLElement {
  return h(
    'table',
    { class: 'audit' },
    h('caption', { class: 'visually-hidden' }, 'Administrative acts, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['When', 'Actor', 'Action', 'Target', 'Outcome', 'Address'].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      records.map((record) =>
        h(
          'tr',
          { 'data-audit-id': record.audit_id },
          h('td', {}, time(record.at)),
          h('td', {}, actorOf(record)),
          h('td', { class: 'mono' }, record.action),
          h('td', { class: 'mono' }, targetOf(record)),
          h('td', {}, outcomeOf(record)),
          h('td', { class: 'mono' }, record.address),
        ),
      ),
    ),
  );
}

function actorOf(record: AuditRecord): string {
  const { caller_id, credential } = record.actor;
  if (caller_id !== null) return caller_id;
  return credential === 'none' ? 'no credentials' : 'refused credentials';
}

/** The path's ids, then what the body said (a new key's caller and scopes, a schedule's timing). */
function targetOf(record: AuditRecord): string {
  const ids = Object.values(record.target);
  const details = Object.entries(record.details).map(
    ([name, value]) => `${name}=${Array.isArray(value) ? value.join(',') : String(value)}`,
  );
  return [...ids, ...details].join(' ');
}

/** The outcome as a coloured label (the colour repeats the word), with the refusal's code. */
function outcomeOf(record: AuditRecord): HTMLElement {
  const code = record.error_code === undefined ? '' : ` ${record.error_code}`;
  return h(
    'span',
    {},
    h('span', { class: `status outcome-${record.outcome}` }, record.outcome),
    code && h('span', { class: 'mono' }, code),
  );
}
