import { every, link, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { facts } from '../facts';
import { time } from '../format';
import { jsonView } from '../json-view';
import type { Schedule } from '../protocol';
import { timingText } from '../schedule-timing';
import { statusBadge } from '../status-badge';

const POLL_MS = 3000;

/**
 * #/schedules/{id}: one schedule, kept current: its timing, next due times, inputs and latest runs
 * (each launched one linking to its execution, with its status; a skipped or failed one saying
 * why), with Pause or Resume, and Delete.
 */
export function schedulePage(context: PageContext): HTMLElement {
  const [scheduleId = ''] = context.params;
  const heading = context.title(`Schedule ${scheduleId}`);
  const body = h('div', { 'aria-busy': 'true' });
  const actionsArea = h('div', { class: 'actions' });
  const message = h('div', { class: 'action-result', role: 'status' });
  const path = `/schedules/${encodeURIComponent(scheduleId)}`;

  async function load(): Promise<void> {
    try {
      render(await context.api.request<Schedule>(path, { signal: context.signal }));
    } catch (error) {
      if (!context.signal.aborted) replace(body, errorView(error));
    }
  }

  async function act(change: { paused: boolean } | 'delete'): Promise<void> {
    replace(message);
    try {
      if (change === 'delete') {
        await context.api.request(path, { method: 'DELETE' });
        context.navigate('#/schedules');
        return;
      }
      render(await context.api.request<Schedule>(path, { method: 'PATCH', json: change }));
    } catch (error) {
      replace(message, errorView(error));
    }
  }

  function render(schedule: Schedule): void {
    body.setAttribute('aria-busy', 'false');
    replace(
      actionsArea,
      h(
        'button',
        { type: 'button', onclick: () => void act({ paused: !schedule.paused }) },
        schedule.paused ? 'Resume' : 'Pause',
      ),
      h('button', { type: 'button', class: 'danger', onclick: () => void act('delete') }, 'Delete schedule'),
    );
    const runs = schedule.last_runs ?? [];
    replace(
      body,
      h('p', { class: 'headline' }, schedule.paused ? 'Paused' : 'Active', `: ${timingText(schedule)}`),
      facts([
        ['Skill', h('a', { href: link('skills', schedule.skill_id) }, schedule.skill_id)],
        !!schedule.version && ['Version range', schedule.version],
        ['Overlap', schedule.overlap === 'skip' ? 'skip a run while the previous one goes on' : 'allow'],
        ['Caller', `${schedule.caller.id} (${schedule.caller.type})`],
        ['Created', time(schedule.created_at)],
        ['Changed', time(schedule.updated_at)],
      ]),
      h('h2', {}, 'Next runs'),
      schedule.next_runs.length === 0
        ? h('p', { class: 'empty' }, 'None while paused.')
        : h(
            'ol',
            { class: 'next-runs' },
            schedule.next_runs.map((at) => h('li', {}, time(at))),
          ),
      h('h2', {}, 'Inputs'),
      jsonView(schedule.inputs, 'Inputs', `${schedule.schedule_id}-inputs.json`),
      h('h2', {}, 'Latest runs'),
      runs.length === 0
        ? h('p', { class: 'empty' }, 'None yet.')
        : h(
            'table',
            { class: 'runs' },
            h('caption', { class: 'visually-hidden' }, 'Latest runs, newest first'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Due', 'Outcome', 'Execution'].map((label) => h('th', { scope: 'col' }, label)),
              ),
            ),
            h(
              'tbody',
              {},
              runs.map((run) =>
                h(
                  'tr',
                  { 'data-outcome': run.outcome },
                  h('td', {}, time(run.due_at)),
                  h('td', {}, run.outcome),
                  h(
                    'td',
                    {},
                    run.execution_id
                      ? [
                          h(
                            'a',
                            { href: link('executions', schedule.skill_id, run.execution_id), class: 'mono' },
                            run.execution_id,
                          ),
                          run.status ? [' ', statusBadge(run.status)] : '',
                          run.outcome === 'skipped' ? ' had not ended' : '',
                        ]
                      : '',
                    run.error ? [h('code', {}, run.error.code), `: ${run.error.message}`] : '',
                  ),
                ),
              ),
            ),
          ),
    );
  }

  void load();
  every(context.signal, POLL_MS, () => void load());
  return h('section', { class: 'page' }, heading, actionsArea, message, body);
}
