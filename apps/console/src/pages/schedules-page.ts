import { link, operates, type PageContext } from '../context';
import { h } from '../dom';
import { time } from '../format';
import { polledPage } from '../polled-page';
import type { SchedulePage } from '../protocol';
import { timingText } from '../schedule-timing';

const POLL_MS = 5000;

/** #/schedules: the caller's schedules (an admin's: everyone's), in the order they were made, kept current. */
export function schedulesPage(context: PageContext): HTMLElement {
  const admin = operates(context.me);
  return polledPage(context, 'Schedules', POLL_MS, async (signal) => {
    const page = await context.api.request<SchedulePage>('/schedules?limit=100', { signal });
    return page.schedules.length === 0
      ? h(
          'p',
          { class: 'empty' },
          'No schedules. Make one with POST /schedules or skillrun schedules create.',
        )
      : h(
          'table',
          { class: 'schedules' },
          h('caption', { class: 'visually-hidden' }, 'Schedules, in the order they were made'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Schedule', 'Skill', 'When', 'Next run', ...(admin ? ['Caller'] : [])].map((label) =>
                h('th', { scope: 'col' }, label),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            page.schedules.map((schedule) =>
              h(
                'tr',
                { 'data-schedule-id': schedule.schedule_id },
                h(
                  'td',
                  {},
                  h(
                    'a',
                    { href: link('schedules', schedule.schedule_id), class: 'mono' },
                    schedule.schedule_id,
                  ),
                ),
                h('td', {}, h('a', { href: link('skills', schedule.skill_id) }, schedule.skill_id)),
                h('td', {}, timingText(schedule)),
                h('td', {}, schedule.paused ? 'paused' : time(schedule.next_runs[0])),
                admin ? h('td', {}, schedule.caller.id) : '',
              ),
            ),
          ),
        );
  });
}
