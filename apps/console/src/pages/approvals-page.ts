import { link, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { shortId, time } from '../format';
import { polledPage } from '../polled-page';
import type { ApprovalPage, ApprovalView, Execution } from '../protocol';

const POLL_MS = 5000;

/**
 * #/approvals: the executions awaiting an approval this caller may decide (an approver their
 * skill's policy names, or an admin), oldest first, kept current; each approved or rejected here,
 * once (a decision someone made first is shown as their error says).
 */
export function approvalsPage(context: PageContext): HTMLElement {
  const outcome = h('div', { class: 'outcome', role: 'status' });

  function decide(approval: ApprovalView, verdict: 'approve' | 'reject', row: HTMLElement): void {
    replace(outcome);
    const path = `/approvals/${encodeURIComponent(approval.execution_id)}/${verdict}`;
    context.api.request<Execution>(path, { method: 'POST', json: {} }).then(
      (execution) => {
        row.remove();
        replace(
          outcome,
          h(
            'p',
            {},
            `${shortId(execution.execution_id)} ${execution.approval?.state ?? verdict}: now ${execution.status}.`,
          ),
        );
      },
      (error: unknown) => replace(outcome, errorView(error)),
    );
  }

  const page = polledPage(context, 'Approvals', POLL_MS, async (signal) => {
    const page = await context.api.request<ApprovalPage>('/approvals?limit=100', { signal });
    if (page.approvals.length === 0) return h('p', { class: 'empty' }, 'No approvals wait for you.');
    return h(
      'table',
      { class: 'approvals' },
      h('caption', { class: 'visually-hidden' }, 'Executions awaiting your approval, oldest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [
            'Execution',
            'Skill',
            'Inputs',
            'Asked because',
            'Invoked by',
            'Created',
            'Decide by',
            'Decision',
          ].map((label) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        {},
        page.approvals.map((approval) => {
          const row = h('tr', { 'data-execution': approval.execution_id });
          const mine = approval.caller.id === context.me.caller_id;
          row.append(
            h(
              'td',
              {},
              mine
                ? h(
                    'a',
                    { href: link('executions', approval.skill_id, approval.execution_id), class: 'mono' },
                    shortId(approval.execution_id),
                  )
                : h('code', {}, shortId(approval.execution_id)),
            ),
            h('td', {}, `${approval.skill_id} ${approval.skill_version}`),
            h('td', {}, h('code', {}, JSON.stringify(approval.inputs))),
            h('td', {}, approval.approval.when ?? 'always'),
            h('td', {}, approval.caller.id),
            h('td', {}, time(approval.created_at)),
            h('td', {}, time(approval.approval.deadline)),
            h(
              'td',
              {},
              h('button', { type: 'button', onclick: () => decide(approval, 'approve', row) }, 'Approve'),
              ' ',
              h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => decide(approval, 'reject', row) },
                'Reject',
              ),
            ),
          );
          return row;
        }),
      ),
    );
  });
  page.append(outcome);
  return page;
}
