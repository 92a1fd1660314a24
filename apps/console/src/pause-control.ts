import type { SkillPauseState } from '@skillrun/client';
import type { Api } from './api';
import { h, replace } from './dom';
import { errorView } from './error-view';
import { time } from './format';

/** A paused skill's label (the colour repeats the word, never replaces it). */
export function pausedBadge(): HTMLElement {
  return h('span', { class: 'status status-paused' }, 'paused');
}

/** What a pause means, in a sentence: since when, by whom, and what happens meanwhile. */
export function pausedText(state: Pick<SkillPauseState, 'paused_at' | 'paused_by'>): string {
  return `Paused since ${time(state.paused_at)} by ${state.paused_by ?? '?'}: its executions are accepted and wait; none starts.`;
}

/**
 * For operators: the button that pauses a skill or resumes it (POST /skills/{id}/pause, /resume),
 * and what came of it. `changed` hears the state the service answers.
 */
export function pauseControl(
  api: Api,
  skillId: string,
  paused: boolean,
  changed: (state: SkillPauseState) => void,
): HTMLElement {
  const outcome = h('span', { class: 'action-result' });
  const action = paused ? 'resume' : 'pause';
  const button = h(
    'button',
    {
      type: 'button',
      class: paused ? '' : 'secondary',
      'aria-label': `${paused ? 'Resume' : 'Pause'} skill ${skillId}`,
      onclick: () => {
        button.setAttribute('disabled', '');
        api
          .request<SkillPauseState>(`/skills/${encodeURIComponent(skillId)}/${action}`, { method: 'POST' })
          .then(changed, (error: unknown) => {
            button.removeAttribute('disabled');
            replace(outcome, errorView(error));
          });
      },
    },
    paused ? 'Resume' : 'Pause',
  );
  return h('span', { class: 'pause-control' }, button, outcome);
}
