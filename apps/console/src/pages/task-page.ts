import { isAdmin, link, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { time } from '../format';
import { jsonView } from '../json-view';
import type { Execution, Task } from '../protocol';
import { SchemaForm } from '../schema-form';
import { statusBadge } from '../status-badge';
import { violationsOf } from './skill-page';

/**
 * #/tasks/{execution_id}: one task: what to do and with what, Claim, and a form generated from the
 * skill's output schema that hands the output in (the service's validation messages appear beside
 * the fields); done, it shows what was handed in (the execution belongs to whoever asked for the
 * task, so its own page is theirs to read, not the assignee's).
 */
export function taskPage(context: PageContext): HTMLElement {
  const [executionId = ''] = context.params;
  const heading = context.title('Task');
  const body = h('div', { 'aria-busy': 'true' });
  const path = `/tasks/${encodeURIComponent(executionId)}`;

  async function load(): Promise<void> {
    const task = await context.api.request<Task>(path, { signal: context.signal });
    heading.textContent = `Task: ${task.description}`;
    const state = h('p', { role: 'status' }, stateText(task));
    const outcome = h('div', { class: 'action-result' });
    const fields = new SchemaForm(task.output_schema, 'Output');
    const form = h(
      'form',
      { class: 'complete', novalidate: true, 'aria-label': 'Complete the task' },
      fields.element,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Complete task')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      replace(outcome);
      const output = fields.value();
      if (output === undefined) return;
      context.api.request<Execution>(`${path}/complete`, { method: 'POST', json: { output } }).then(
        (execution) =>
          replace(
            body,
            h(
              'p',
              { class: 'notice', role: 'status' },
              'Task completed: the execution is ',
              statusBadge(execution.status),
              '.',
            ),
            h('h2', {}, 'Output handed in'),
            jsonView(execution.output, 'Output handed in'),
            h('p', {}, h('a', { href: '#/tasks' }, 'Back to the tasks')),
          ),
        (error: unknown) => {
          const violations = violationsOf(error);
          if (violations) fields.showViolations(violations, '/output');
          else replace(outcome, errorView(error));
        },
      );
    });
    const claim = h(
      'button',
      {
        type: 'button',
        onclick: () => {
          replace(outcome);
          context.api.request<Task>(`${path}/claim`, { method: 'POST' }).then(
            (claimed) => {
              state.textContent = stateText(claimed);
            },
            (error: unknown) => replace(outcome, errorView(error)),
          );
        },
      },
      'Claim',
    );
    replace(
      body,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Skill'),
        h('dd', {}, `${task.skill_id} ${task.skill_version}`),
        h('dt', {}, 'Asked by'),
        h('dd', {}, task.caller.id),
        h('dt', {}, 'Due'),
        h('dd', {}, time(task.deadline)),
        h('dt', {}, 'Execution'),
        // Its page is for whoever asked for the task (or an admin): a link only for them.
        h(
          'dd',
          {},
          task.caller.id === context.me.caller_id || isAdmin(context.me)
            ? h('a', { href: link('executions', task.skill_id, task.execution_id) }, task.execution_id)
            : h('code', {}, task.execution_id),
        ),
      ),
      state,
      task.instructions
        ? [h('h2', {}, 'Instructions'), h('p', { class: 'instructions' }, task.instructions)]
        : '',
      h('h2', {}, 'Inputs'),
      jsonView(task.inputs, 'Inputs'),
      h('div', { class: 'actions' }, claim),
      h('h2', {}, 'Hand it in'),
      form,
      outcome,
    );
    body.setAttribute('aria-busy', 'false');
  }

  load().catch((error: unknown) => {
    if (!context.signal.aborted) replace(body, errorView(error));
  });
  return h('section', { class: 'page' }, heading, body);
}

function stateText(task: Task): string {
  return task.state === 'claimed'
    ? `Claimed by ${task.claimed_by ?? 'someone'} at ${time(task.claimed_at)}.`
    : 'Open: nobody has claimed it.';
}
