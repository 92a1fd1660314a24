import { link, type PageContext } from '../context';
import { h } from '../dom';
import { shortId, time } from '../format';
import { polledPage } from '../polled-page';
import type { TaskPage } from '../protocol';

const POLL_MS = 5000;

/** #/tasks: the open tasks this caller may take (of `task` skills), oldest first, kept current. */
export function tasksPage(context: PageContext): HTMLElement {
  return polledPage(context, 'Tasks', POLL_MS, async (signal) => {
    const page = await context.api.request<TaskPage>('/tasks?limit=100', { signal });
    return page.tasks.length === 0
      ? h('p', { class: 'empty' }, 'No open tasks for you.')
      : h(
          'table',
          { class: 'tasks' },
          h('caption', { class: 'visually-hidden' }, 'Open tasks, oldest first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Task', 'Skill', 'What', 'State', 'Asked by', 'Created', 'Due'].map((label) =>
                h('th', { scope: 'col' }, label),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            page.tasks.map((task) =>
              h(
                'tr',
                {},
                h(
                  'td',
                  {},
                  h(
                    'a',
                    { href: link('tasks', task.execution_id), class: 'mono' },
                    shortId(task.execution_id),
                  ),
                ),
                h('td', {}, `${task.skill_id} ${task.skill_version}`),
                h('td', {}, task.description),
                h('td', {}, task.state, task.claimed_by ? ` by ${task.claimed_by}` : ''),
                h('td', {}, task.caller.id),
                h('td', {}, time(task.created_at)),
                h('td', {}, time(task.deadline)),
              ),
            ),
          ),
        );
  });
}
