import { isTerminal } from '@skillrun/client';
import type { Api } from '../api';
import { link, mayInvoke, type PageContext, seesPayloads } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { facts } from '../facts';
import { followExecution } from '../follow-execution';
import { duration, queueWait, runTime, time, usd } from '../format';
import { jsonView } from '../json-view';
import type { Execution } from '../protocol';
import { statusBadge } from '../status-badge';

/** accepted → started → each retried attempt's error → the outcome, each with its time and what it took. */
function timeline(execution: Execution): HTMLElement {
  const { timestamps } = execution;
  const retries = Math.max(0, execution.attempts - 1);
  const items: Node[] = [h('li', {}, h('strong', {}, 'Accepted'), ` ${time(timestamps.created_at)}`)];
  if (timestamps.scheduled_for) {
    items.push(h('li', {}, h('strong', {}, 'Due'), ` ${time(timestamps.scheduled_for)}`));
  }
  const dueIn = timestamps.scheduled_for ? Date.parse(timestamps.scheduled_for) - Date.now() : 0;
  if (timestamps.started_at) {
    items.push(
      h(
        'li',
        {},
        h('strong', {}, 'Started'),
        ` ${time(timestamps.started_at)}, after ${duration(queueWait(execution))} in the queue`,
        execution.worker_id ? ` on ${execution.worker_id}` : '',
      ),
    );
  } else if (!isTerminal(execution.status) && dueIn > 0) {
    items.push(h('li', { class: 'pending' }, `Delayed: starts in ${duration(dueIn)}`));
  } else if (!isTerminal(execution.status)) {
    items.push(h('li', { class: 'pending' }, `Waiting in the queue (${duration(queueWait(execution))})`));
  }
  for (const failure of execution.attempt_errors ?? []) {
    items.push(
      h(
        'li',
        { class: 'attempt-failed' },
        h('strong', {}, `Attempt ${failure.attempt} failed`),
        ` ${time(failure.failed_at)} on ${failure.worker_id} with `,
        h('code', {}, failure.error.code),
        `: ${failure.error.message}`,
      ),
    );
  }
  if (retries > 0) {
    items.push(
      h(
        'li',
        {},
        h('strong', {}, `${retries} ${retries === 1 ? 'retry' : 'retries'}`),
        ` (attempt ${execution.attempts} of ${execution.max_attempts})`,
      ),
    );
  }
  if (execution.task) {
    items.push(
      h(
        'li',
        {},
        h('strong', {}, `Task ${execution.task.state}`),
        execution.task.claimed_by ? ` by ${execution.task.claimed_by}` : '',
        `, due ${time(execution.task.deadline)}`,
      ),
    );
  }
  if (isTerminal(execution.status)) {
    items.push(
      h(
        'li',
        {},
        h('strong', {}, execution.status[0]?.toUpperCase() + execution.status.slice(1)),
        ` ${time(timestamps.completed_at ?? timestamps.updated_at)}`,
        execution.timestamps.started_at ? `, after ${duration(runTime(execution))} running` : '',
        execution.error ? ` with ${execution.error.code}: ${execution.error.message}` : '',
      ),
    );
  } else if (execution.status === 'running') {
    items.push(h('li', { class: 'pending' }, `Running for ${duration(runTime(execution))}`));
  }
  return h('ol', { class: 'timeline', 'aria-label': 'Timeline' }, items);
}

/**
 * A composite's steps as a tree: each step links to its own page, and its own steps hang below it.
 * With `rerunFrom`, each step of the composite's last attempt offers "Rerun from here".
 */
async function stepsTree(
  api: Api,
  execution: Execution,
  signal: AbortSignal,
  depth = 0,
  rerunFrom?: (step: string) => void,
): Promise<HTMLElement> {
  const all = execution.steps ?? [];
  const last = Math.max(0, ...all.map(({ attempt }) => attempt));
  const items = await Promise.all(
    all.map(async (step) => {
      const label = [
        h('span', { class: 'step-name' }, step.step),
        ' ',
        statusBadge(step.status),
        ` ${step.skill_id}${step.skill_version ? `@${step.skill_version}` : ''}`,
        step.attempt > 1 ? ` (attempt ${step.attempt} of the composite)` : '',
        step.attempt === 0 ? ' (reused from the execution it forked from)' : '',
      ];
      const rerun =
        rerunFrom && (step.attempt === 0 || step.attempt === last)
          ? [
              ' ',
              h(
                'button',
                {
                  type: 'button',
                  class: 'rerun',
                  'aria-label': `Rerun from step ${step.step}`,
                  onclick: () => rerunFrom(step.step),
                },
                'Rerun from here',
              ),
            ]
          : '';
      if (!step.execution_id) return h('li', {}, label, rerun);
      let children: HTMLElement | string = '';
      if (depth < 3) {
        const child = await api
          .request<Execution>(
            `/skills/${encodeURIComponent(step.skill_id)}/status/${encodeURIComponent(step.execution_id)}`,
            { signal },
          )
          .catch(() => undefined);
        if (child?.steps?.length) children = await stepsTree(api, child, signal, depth + 1);
      }
      return h(
        'li',
        {},
        h('a', { href: link('executions', step.skill_id, step.execution_id) }, label),
        rerun,
        children,
      );
    }),
  );
  return h('ul', { class: 'steps' }, items);
}

/**
 * #/executions/{skill}/{id}: one execution, followed live until it ends: its timeline, progress,
 * inputs, output or error envelope, identity (trace id, caller, worker), LLM usage, the schedule
 * or batch it came from, a composite's steps as a tree, and Cancel (while it has not ended) and
 * Replay (once it has) for a caller who may invoke.
 */
export function executionPage(context: PageContext): HTMLElement {
  const [skillId = '', executionId = ''] = context.params;
  const heading = context.title(`Execution ${executionId}`);
  const body = h('div', { 'aria-busy': 'true' });
  const actionsArea = h('div', { class: 'actions' });
  const message = h('div', { class: 'action-result', role: 'status' });
  const mode = h('p', { class: 'live' });
  const steps = h('div', { class: 'steps-area' });
  // What the skill streams, as it comes: text as it is, anything else as a line of JSON.
  const streamed = h('pre', { class: 'streamed', 'aria-live': 'polite', 'aria-label': 'Streamed output' });
  const streamArea = h(
    'div',
    { class: 'stream-area', hidden: true },
    h('h2', {}, 'Streamed output'),
    streamed,
  );
  let current: Execution | undefined;
  let stepsKey = '';
  // The inputs never change: read once, shown beside whatever the status says.
  const inputs = h('div', { class: 'inputs-area' });
  const payloads = seesPayloads(context.me);
  if (!payloads)
    replace(
      inputs,
      h('p', { class: 'hint', id: 'payloads-hidden' }, 'Inputs and output are not shown to the viewer role.'),
    );
  if (payloads)
    context.api
      .request<{ inputs: Record<string, unknown> }>(
        `/skills/${encodeURIComponent(skillId)}/inputs/${encodeURIComponent(executionId)}`,
        { signal: context.signal },
      )
      .then(
        (answer) =>
          replace(
            inputs,
            h('h2', {}, 'Inputs'),
            jsonView(answer.inputs, 'Inputs', `${executionId}-inputs.json`),
          ),
        () => {},
      );

  /** Cancel, or replay (a composite's from `fromStep`: rerun from that step, reusing those before). */
  async function act(kind: 'cancel' | 'replay', fromStep?: string): Promise<void> {
    replace(message);
    try {
      const answer = await context.api.request<Execution>(
        `/skills/${encodeURIComponent(skillId)}/${kind}/${encodeURIComponent(executionId)}`,
        {
          method: 'POST',
          ...(kind === 'replay' ? { json: fromStep === undefined ? {} : { from_step: fromStep } } : {}),
        },
      );
      if (kind === 'replay') context.navigate(link('executions', answer.skill_id, answer.execution_id));
      else render(answer);
    } catch (error) {
      replace(message, errorView(error));
    }
  }

  function render(execution: Execution): void {
    current = execution;
    body.setAttribute('aria-busy', 'false');
    const may = mayInvoke(context.me);
    replace(
      actionsArea,
      may && !isTerminal(execution.status)
        ? h(
            'button',
            { type: 'button', class: 'danger', onclick: () => void act('cancel') },
            'Cancel execution',
          )
        : '',
      may && isTerminal(execution.status)
        ? h('button', { type: 'button', onclick: () => void act('replay') }, 'Replay')
        : '',
    );
    replace(
      body,
      h(
        'p',
        { class: 'headline' },
        statusBadge(execution.status),
        ' ',
        h('a', { href: link('skills', execution.skill_id) }, execution.skill_id),
        ` ${execution.skill_version}`,
      ),
      execution.progress !== undefined && !isTerminal(execution.status)
        ? h(
            'p',
            {},
            h('label', { for: 'progress' }, 'Progress '),
            h('progress', {
              id: 'progress',
              max: 100,
              value: Math.min(100, Math.max(0, execution.progress)),
            }),
            ` ${execution.progress}`,
          )
        : '',
      h('h2', {}, 'Timeline'),
      timeline(execution),
      h('h2', {}, 'Details'),
      facts([
        ['Execution id', h('code', {}, execution.execution_id)],
        ['Trace id', h('code', {}, execution.trace_id)],
        ['Caller', `${execution.caller.id} (${execution.caller.type})`],
        ['Priority', execution.priority],
        !!execution.approval && ['Approval', approvalText(execution.approval)],
        !!execution.requested_version && ['Requested version', execution.requested_version],
        ['Attempts', `${execution.attempts} of ${execution.max_attempts}`],
        ['Worker', execution.worker_id ?? '–'],
        ['Queue wait', duration(queueWait(execution))],
        ['Run time', duration(runTime(execution))],
        !!execution.replay_of && [
          'Replay of',
          h('a', { href: link('executions', execution.skill_id, execution.replay_of) }, execution.replay_of),
        ],
        !!execution.forked_from && [
          'Rerun from',
          h(
            'span',
            {},
            `step "${execution.forked_from.step}" of `,
            h(
              'a',
              { href: link('executions', execution.skill_id, execution.forked_from.execution_id) },
              execution.forked_from.execution_id,
            ),
          ),
        ],
        !!execution.schedule_id && [
          'Run of schedule',
          h('a', { href: link('schedules', execution.schedule_id) }, execution.schedule_id),
        ],
        !!execution.batch_id && [
          'Item of batch',
          h('a', { href: link('batches', execution.batch_id) }, execution.batch_id),
        ],
        !!execution.parent && [
          'Step of',
          h('span', {}, `"${execution.parent.step}" in `, h('code', {}, execution.parent.execution_id)),
        ],
        execution.usage?.cost_usd !== undefined && ['Cost', usd(execution.usage.cost_usd)],
        !!execution.usage?.models.length && [
          'LLM usage',
          `${execution.usage.total_tokens} tokens (${execution.usage.prompt_tokens} prompt, ${execution.usage.completion_tokens} completion), ${execution.usage.requests} requests, ${execution.usage.models.join(', ')}`,
        ],
      ]),
      inputs,
      streamArea,
      execution.error ? [h('h2', {}, 'Error'), jsonView({ error: execution.error }, 'Error envelope')] : '',
      execution.output !== undefined
        ? [
            h('h2', {}, 'Output'),
            jsonView(execution.output, 'Output', `${execution.execution_id}-output.json`),
          ]
        : '',
      execution.steps?.length ? [h('h2', {}, 'Steps'), steps] : '',
    );
    // Rerun from a step once the composite has ended, for a caller who may invoke.
    const rerunFrom =
      may && isTerminal(execution.status) ? (step: string) => void act('replay', step) : undefined;
    const key = JSON.stringify([!!rerunFrom, execution.steps ?? []]);
    if (execution.steps?.length && key !== stepsKey) {
      stepsKey = key;
      void stepsTree(context.api, execution, context.signal, 0, rerunFrom).then(
        (tree) => replace(steps, tree),
        () => {},
      );
    }
  }

  function showChunk(chunk: unknown): void {
    streamArea.hidden = false;
    const text = streamed.textContent ?? '';
    const line =
      typeof chunk === 'string'
        ? chunk
        : `${text && !text.endsWith('\n') ? '\n' : ''}${JSON.stringify(chunk)}\n`;
    streamed.append(line);
  }

  followExecution(
    context,
    skillId,
    executionId,
    render,
    (how) => {
      mode.textContent =
        how === 'live' ? 'Live: changes arrive as they happen.' : 'Live: read again as it changes (polling).';
    },
    showChunk,
  )
    .then(() => {
      if (current && isTerminal(current.status)) mode.textContent = `Ended: ${current.status}.`;
    })
    .catch((error: unknown) => {
      if (!context.signal.aborted) replace(body, errorView(error));
    });
  return h('section', { class: 'page' }, heading, mode, actionsArea, message, body);
}

/** An execution's approval: pending until when, or who decided it, how and when. */
function approvalText(approval: NonNullable<Execution['approval']>): string {
  const asked = `asked because ${approval.when ?? 'always'}`;
  if (approval.state === 'pending') return `pending until ${time(approval.deadline)} (${asked})`;
  const by = approval.decided_by === undefined ? '' : ` by ${approval.decided_by}`;
  const via = approval.via === undefined ? '' : ` via ${approval.via}`;
  const reason = approval.reason === undefined ? '' : `: ${approval.reason}`;
  return `${approval.state.replace('_', ' ')}${by}${via} at ${time(approval.decided_at)}${reason} (${asked})`;
}
