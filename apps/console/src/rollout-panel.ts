import type { SkillRollout, SkillVersionList } from '@skillrun/client';
import type { Api } from './api';
import { h, replace } from './dom';
import { errorView } from './error-view';
import { time } from './format';

/**
 * For admins, on a skill's page: its rollout (GET /skills/{id}/rollout): the split of its unpinned
 * callers between the ramped version and the other one, its pinned callers, and the forms that
 * ramp a version, roll it back, pin a caller and unpin one. Each change shows the rollout the
 * service answers.
 */
export function rolloutPanel(api: Api, skillId: string, versions: SkillVersionList | undefined): HTMLElement {
  const path = `/skills/${encodeURIComponent(skillId)}`;
  // The heading is there from the start: the section is labelled by it while the rollout loads.
  const heading = h('h2', { id: 'rollout-heading' }, 'Rollout');
  const area = h(
    'section',
    { class: 'rollout', 'aria-labelledby': 'rollout-heading', 'aria-live': 'polite' },
    heading,
  );
  const outcome = h('div', { class: 'action-result' });
  const available = versions?.versions.map((version) => version.version) ?? [];

  /** A change sent: the rollout it answers shown, or its refusal beside the forms. */
  const change = (request: Promise<SkillRollout>): void => {
    void request.then(show, (error: unknown) => replace(outcome, errorView(error)));
  };

  function show(rollout: SkillRollout): void {
    replace(outcome);
    replace(
      area,
      heading,
      splitOf(rollout, available, versions?.latest),
      rollout.pins.length > 0 ? pinsTable(rollout) : h('p', {}, 'No caller is pinned.'),
      rampForm(rollout),
      pinForm(),
      outcome,
    );
  }

  function rampForm(rollout: SkillRollout): HTMLElement {
    const version = h(
      'select',
      { name: 'version', id: 'rollout-version' },
      available.map((each) => h('option', { value: each, selected: each === rollout.ramp?.version }, each)),
    );
    const percent = h('input', {
      type: 'number',
      name: 'percent',
      id: 'rollout-percent',
      min: 0,
      max: 100,
      step: 1,
      value: rollout.ramp?.percent ?? 10,
    });
    const form = h(
      'form',
      { class: 'inline-form', novalidate: true, 'aria-label': 'Ramp a version' },
      h('label', { for: 'rollout-version' }, 'Ramp version'),
      ' ',
      version,
      ' ',
      h('label', { for: 'rollout-percent' }, 'to share (%)'),
      ' ',
      percent,
      h('button', { type: 'submit' }, 'Ramp'),
      rollout.ramp && rollout.ramp.percent > 0
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () => change(api.request<SkillRollout>(`${path}/rollout`, { method: 'DELETE' })),
            },
            'Roll back',
          )
        : '',
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const json = { version: version.value, percent: Number(percent.value) };
      change(api.request<SkillRollout>(`${path}/rollout`, { method: 'POST', json }));
    });
    return form;
  }

  function pinForm(): HTMLElement {
    const caller = h('input', { type: 'text', name: 'caller', id: 'pin-caller', required: true });
    const range = h('input', { type: 'text', name: 'range', id: 'pin-range', required: true });
    const form = h(
      'form',
      { class: 'inline-form', novalidate: true, 'aria-label': 'Pin a caller' },
      h('label', { for: 'pin-caller' }, 'Pin caller'),
      ' ',
      caller,
      ' ',
      h('label', { for: 'pin-range' }, 'to range'),
      ' ',
      range,
      ' ',
      h('button', { type: 'submit', class: 'secondary' }, 'Pin'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const url = `${path}/pins/${encodeURIComponent(caller.value)}`;
      change(api.request<SkillRollout>(url, { method: 'PUT', json: { version: range.value } }));
    });
    return form;
  }

  function pinsTable(rollout: SkillRollout): HTMLElement {
    return h(
      'table',
      { class: 'pins' },
      h('caption', {}, 'Pinned callers'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Caller', 'Range', 'Pinned', ''].map((label) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        {},
        rollout.pins.map((pin) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, pin.caller),
            h('td', {}, h('code', {}, pin.version)),
            h('td', {}, `${time(pin.pinned_at)} by ${pin.pinned_by}`),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Unpin ${pin.caller}`,
                  onclick: () =>
                    change(
                      api.request<SkillRollout>(`${path}/pins/${encodeURIComponent(pin.caller)}`, {
                        method: 'DELETE',
                      }),
                    ),
                },
                'Unpin',
              ),
            ),
          ),
        ),
      ),
    );
  }

  api
    .request<SkillRollout>(`${path}/rollout`)
    .then(show, (error: unknown) => replace(area, heading, errorView(error)));
  return area;
}

/**
 * The split in words and as a bar: the ramped version's share of the unpinned callers, and the
 * version the others run (the latest other one, as the service chooses).
 */
function splitOf(rollout: SkillRollout, available: string[], latest: string | undefined): HTMLElement {
  const { ramp } = rollout;
  if (!ramp)
    return h(
      'p',
      { class: 'rollout-split' },
      `No ramp: unpinned callers run the latest version${latest ? ` (${latest})` : ''}.`,
    );
  const other = available.find((version) => version !== ramp.version);
  return h(
    'div',
    { class: 'rollout-split' },
    h(
      'p',
      {},
      `${ramp.version}: ${ramp.percent}% of unpinned callers · ${other ?? 'the other versions'}: ${100 - ramp.percent}%`,
      ramp.percent === 0 ? ' (rolled back)' : '',
      ` — set ${time(ramp.ramped_at)} by ${ramp.ramped_by}`,
    ),
    h('progress', {
      max: 100,
      value: ramp.percent,
      'aria-label': `Share of unpinned callers on ${ramp.version}`,
    }),
  );
}
