import { every, link, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { shortId, time } from '../format';
import type { TaskPage } from '../protocol';

const POLL_MS = 5000;

/** #/tasks: the open tasks this caller may take (of `task` skills), oldest first, kept current. */
export function tasksPage(context: PageContext): HTMLElement {
  const heading = context.title('Tasks');
  const results = h('div', { class: 'results', 'aria-live': 'polite' });

  async function load(): Promise<void> {
    try {
      const page = await context.api.request<TaskPage>('/tasks?limit=100', { signal: context.signal });
      replace(
        results,
        page.tasks.length === 0
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
            ),
      );
    } catch (error) {
      if (!context.signal.aborted) replace(results, errorView(error));
    }
  }

  void load();
  every(context.signal, POLL_MS, () => void load());
  return h(
    'section',
    { class: 'page' },
    heading,
    h('p', { class: 'live' }, `Read again every ${POLL_MS / 1000} s.`),
    results,
  );
}
