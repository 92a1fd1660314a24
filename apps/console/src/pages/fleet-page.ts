import type { Fleet } from '@skillrun/gateway/fleet';
import { query } from '../api';
import { every, link, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { duration, time } from '../format';
import { pauseControl, pausedBadge } from '../pause-control';
import type { Execution, ExecutionPage } from '../protocol';
import { sparkline } from '../sparkline';

const FLEET_POLL_MS = 3000;
const HISTORY_POLL_MS = 15_000;
/** Twelve buckets of five minutes: the last hour. */
const BUCKET_MS = 5 * 60_000;
const BUCKETS = 12;
/** Pages of GET /executions read for the sparklines, at most (100 executions each). */
const HISTORY_PAGES = 10;

/** The hour's count beside its line. */
function total(counts: number[] | undefined): HTMLElement {
  return h('span', { class: 'spark-total' }, ` ${(counts ?? []).reduce((sum, count) => sum + count, 0)}`);
}

interface History {
  ended: Map<string, { completed: number[]; failed: number[] }>;
  running: Map<string, number>;
}

/**
 * #/workers (admins): the workers alive and what each hosts and runs now, each hosted version's
 * queue (depth, age of the oldest in line, whether its skill is paused, with the button that pauses
 * or resumes it), and its throughput and errors over the last hour as sparklines, from the service's own data: GET /admin/fleet (the registry's leases and BullMQ's
 * counts) every 3 s, and the execution history (GET /executions) every 15 s.
 */
export function fleetPage(context: PageContext): HTMLElement {
  const heading = context.title('Workers and queues');
  const workersArea = h('div', { 'aria-live': 'polite' });
  const queuesArea = h('div', {});
  let fleet: Fleet | undefined;
  let history: History = { ended: new Map(), running: new Map() };

  async function readHistory(): Promise<History> {
    const now = Date.now();
    const since = new Date(now - BUCKETS * BUCKET_MS).toISOString();
    const executions: Execution[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < HISTORY_PAGES; page++) {
      const answer = await context.api.request<ExecutionPage>(
        `/executions${query({ since, limit: 100, cursor })}`,
        {
          signal: context.signal,
        },
      );
      executions.push(...answer.executions);
      if (!answer.next_cursor) break;
      cursor = answer.next_cursor;
    }
    const ended = new Map<string, { completed: number[]; failed: number[] }>();
    const running = new Map<string, number>();
    for (const execution of executions) {
      if (execution.status === 'running' && execution.worker_id) {
        running.set(execution.worker_id, (running.get(execution.worker_id) ?? 0) + 1);
      }
      const end = execution.timestamps.completed_at;
      // Canceled ones are neither throughput nor the skill's errors.
      if (!end || execution.status === 'canceled') continue;
      const bucket = BUCKETS - 1 - Math.floor((now - Date.parse(end)) / BUCKET_MS);
      if (bucket < 0 || bucket >= BUCKETS) continue;
      const key = `${execution.skill_id}@${execution.skill_version}`;
      const series = ended.get(key) ?? {
        completed: new Array(BUCKETS).fill(0),
        failed: new Array(BUCKETS).fill(0),
      };
      const counts = execution.status === 'completed' ? series.completed : series.failed;
      counts[bucket] = (counts[bucket] ?? 0) + 1;
      ended.set(key, series);
    }
    return { ended, running };
  }

  function render(): void {
    if (!fleet) return;
    replace(
      workersArea,
      fleet.workers.length === 0
        ? h('p', { class: 'empty' }, 'No worker is alive.')
        : h(
            'table',
            { class: 'workers' },
            h('caption', {}, `Workers alive (${fleet.workers.length})`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Worker', 'Hosts', 'Running now', 'Lease until'].map((label) =>
                  h('th', { scope: 'col' }, label),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              fleet.workers.map((worker) =>
                h(
                  'tr',
                  { 'data-worker-id': worker.worker_id },
                  h('th', { scope: 'row', class: 'mono' }, worker.worker_id),
                  h(
                    'td',
                    {},
                    worker.hosts.map((host, index) => [
                      index > 0 ? ', ' : '',
                      h('a', { href: link('skills', host.skill_id) }, `${host.skill_id}@${host.version}`),
                    ]),
                  ),
                  h('td', {}, String(history.running.get(worker.worker_id) ?? 0)),
                  h('td', {}, time(worker.lease_expires_at)),
                ),
              ),
            ),
          ),
    );
    replace(
      queuesArea,
      h(
        'table',
        { class: 'queues' },
        h(
          'caption',
          {},
          'Queues of the hosted skill versions; throughput and errors per 5 minutes over the last hour',
        ),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              'Skill version',
              'Workers',
              'Waiting',
              'Active',
              'Delayed',
              'Oldest waiting',
              'Completed',
              'Failed',
              'Operator',
            ].map((label) => h('th', { scope: 'col' }, label)),
          ),
        ),
        h(
          'tbody',
          {},
          fleet.queues.map((queue) => {
            const key = `${queue.skill_id}@${queue.version}`;
            const series = history.ended.get(key);
            const zeros = new Array<number>(BUCKETS).fill(0);
            return h(
              'tr',
              { 'data-queue': key },
              h(
                'th',
                { scope: 'row' },
                h(
                  'a',
                  {
                    href: `#/executions?${new URLSearchParams({ skill_id: queue.skill_id, version: queue.version })}`,
                  },
                  key,
                ),
                queue.paused ? [' ', pausedBadge()] : '',
              ),
              h('td', {}, String(queue.workers)),
              h('td', { class: 'waiting' }, String(queue.waiting)),
              h('td', {}, String(queue.active)),
              h('td', {}, String(queue.delayed)),
              h('td', {}, queue.waiting > 0 ? duration(queue.oldest_waiting_seconds * 1000) : '–'),
              h(
                'td',
                {},
                sparkline(series?.completed ?? zeros, `${key} completed per 5 minutes`, 'ok'),
                total(series?.completed),
              ),
              h(
                'td',
                {},
                sparkline(series?.failed ?? zeros, `${key} failed or timed out per 5 minutes`, 'error'),
                total(series?.failed),
              ),
              h(
                'td',
                {},
                pauseControl(context.api, queue.skill_id, queue.paused, () => void readFleet()),
              ),
            );
          }),
        ),
      ),
    );
  }

  const readFleet = () =>
    context.api
      .request<Fleet>('/admin/fleet', { signal: context.signal })
      .then((read) => {
        fleet = read;
        render();
      })
      .catch((error: unknown) => {
        if (!context.signal.aborted) replace(workersArea, errorView(error));
      });
  const refreshHistory = () =>
    readHistory()
      .then((read) => {
        history = read;
        render();
      })
      .catch(() => {});
  void readFleet();
  void refreshHistory();
  every(context.signal, FLEET_POLL_MS, () => void readFleet());
  every(context.signal, HISTORY_POLL_MS, () => void refreshHistory());
  return h(
    'section',
    { class: 'page' },
    heading,
    h(
      'p',
      { class: 'live' },
      `Workers and queues read every ${FLEET_POLL_MS / 1000} s; the lines every ${HISTORY_POLL_MS / 1000} s.`,
    ),
    workersArea,
    queuesArea,
  );
}
