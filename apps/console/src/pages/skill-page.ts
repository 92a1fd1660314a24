import type { SkillVersionList } from '@skillrun/client';
import { ApiError } from '../api';
import { isAdmin, link, mayInvoke, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { time } from '../format';
import { jsonView } from '../json-view';
import { pauseControl, pausedText } from '../pause-control';
import type { Execution, JsonSchema, SkillDescriptor } from '../protocol';
import { SchemaForm, type Violation } from '../schema-form';
import { schemaTable } from '../schema-table';
import { skillCost } from '../skill-cost';

/** The object schema a descriptor's `inputs` (one parameter each) stand for. */
export function inputSchemaOf(descriptor: SkillDescriptor): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      descriptor.inputs.map((input) => [
        input.name,
        {
          type: input.type,
          ...input.schema,
          ...(input.description ? { description: input.description } : {}),
          ...(input.default === undefined ? {} : { default: input.default }),
        },
      ]),
    ),
    required: descriptor.inputs.filter((input) => input.required).map((input) => input.name),
  };
}

/** Whether a refusal lists violations ({path, message}…) a form can place beside its fields. */
export function violationsOf(error: unknown): Violation[] | undefined {
  if (!(error instanceof ApiError) || !Array.isArray(error.body.details)) return undefined;
  const list = error.body.details as unknown[];
  return list.every(
    (item) => typeof item === 'object' && item !== null && 'path' in item && 'message' in item,
  )
    ? (list as Violation[])
    : undefined;
}

/** Whether this service's workers run the version (a skill registered from elsewhere runs at its provider). */
function isHosted(descriptor: SkillDescriptor, versions: SkillVersionList | undefined): boolean {
  return (
    versions?.versions.find((version) => version.version === descriptor.version)?.source !== 'registered'
  );
}

/**
 * #/skills/{id}: a skill's descriptor, readably: what it does, for admins whether it is paused (and
 * the button that pauses or resumes it), its versions (deprecated ones marked), its inputs and
 * output as tables, and a form generated from its inputs that invokes it
 * (the service's validation messages appear beside the fields) and then opens the execution,
 * which follows it live.
 */
export function skillPage(context: PageContext): HTMLElement {
  const [skillId = ''] = context.params;
  const heading = context.title(`Skill ${skillId}`);
  const body = h('div', { 'aria-busy': 'true' });
  const path = `/skills/${encodeURIComponent(skillId)}`;

  async function load(): Promise<void> {
    const [descriptor, versions] = await Promise.all([
      context.api.request<SkillDescriptor>(path, { signal: context.signal }),
      context.api
        .request<SkillVersionList>(`${path}/versions`, { signal: context.signal })
        .catch(() => undefined),
    ]);
    heading.textContent = `${descriptor.name} ${descriptor.version}`;
    const deprecated = descriptor['x-deprecated'];
    replace(
      body,
      deprecated
        ? h(
            'p',
            { class: 'notice notice-warning' },
            `Version ${descriptor.version} is deprecated (${time(deprecated.deprecated_at)}): ${deprecated.message}`,
          )
        : '',
      isAdmin(context.me) && isHosted(descriptor, versions) ? operatorControls(descriptor) : '',
      h('p', { class: 'lead' }, descriptor.description),
      h(
        'dl',
        { class: 'facts' },
        [
          ['Id', h('code', {}, descriptor.id)],
          ['Capability', descriptor.capability_type],
          ['Category', descriptor['x-category'] ?? '–'],
          ['Tags', (descriptor.tags ?? []).join(', ') || '–'],
          ['Access', descriptor.access],
          ['Authentication', descriptor.auth.type],
          ['Timeout', `${descriptor.endpoint.timeout_ms} ms`],
          ['Provider', descriptor.provider?.name ?? '–'],
        ].map(([label, value]) => [h('dt', {}, label as string), h('dd', {}, value as Node | string)]),
      ),
      h(
        'p',
        {},
        h(
          'a',
          { href: `#/executions?${new URLSearchParams({ skill_id: descriptor.id })}` },
          'Its executions',
        ),
      ),
      versions ? versionsTable(versions) : '',
      skillCost(context, descriptor.id),
      h('h2', {}, 'Inputs'),
      schemaTable(inputSchemaOf(descriptor), 'Inputs'),
      h('h2', {}, 'Output'),
      schemaTable(descriptor.output.schema, 'Output'),
      mayInvoke(context.me) ? tryIt(descriptor) : '',
      h(
        'details',
        {},
        h('summary', {}, 'The Skill Descriptor as JSON'),
        jsonView(descriptor, 'Skill Descriptor'),
      ),
    );
    body.setAttribute('aria-busy', 'false');
  }

  /**
   * An admin's hold on a skill this service's workers host: whether it is paused (`x-paused`,
   * which admins see), and the button that pauses or resumes it.
   */
  function operatorControls(descriptor: SkillDescriptor): HTMLElement {
    const area = h('div', { class: 'operator', 'aria-live': 'polite' });
    const show = (pause: SkillDescriptor['x-paused']) =>
      replace(
        area,
        pause ? h('p', { class: 'notice notice-warning' }, pausedText(pause)) : '',
        pauseControl(context.api, descriptor.id, pause !== undefined, (state) =>
          show(
            state.paused ? { paused_at: state.paused_at ?? '', paused_by: state.paused_by ?? '' } : undefined,
          ),
        ),
      );
    show(descriptor['x-paused']);
    return area;
  }

  function versionsTable(versions: SkillVersionList): HTMLElement {
    return h(
      'table',
      { class: 'versions' },
      h('caption', {}, 'Versions'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Version', 'Source', 'Registered', 'Deprecation'].map((label) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        {},
        versions.versions.map((version) =>
          h(
            'tr',
            {},
            h(
              'th',
              { scope: 'row' },
              version.version,
              version.version === versions.latest ? ' (latest)' : '',
            ),
            h('td', {}, version.source),
            h('td', {}, time(version.registered_at)),
            h('td', {}, version.deprecated ? `deprecated: ${version.deprecated.message}` : ''),
          ),
        ),
      ),
    );
  }

  function tryIt(descriptor: SkillDescriptor): HTMLElement {
    const fields = new SchemaForm(inputSchemaOf(descriptor), 'Inputs');
    const outcome = h('div', { class: 'action-result' });
    const form = h(
      'form',
      { class: 'try-it', novalidate: true, 'aria-labelledby': 'try-it-heading' },
      fields.element,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Invoke')),
      outcome,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      replace(outcome);
      const inputs = fields.value();
      if (inputs === undefined) return;
      context.api
        .request<Execution>(`${path}/invoke`, {
          method: 'POST',
          json: {
            caller: { id: context.me.caller_id, type: 'user' },
            skill_id: descriptor.id,
            version: descriptor.version,
            inputs,
          },
        })
        .then(
          (accepted) => context.navigate(link('executions', accepted.skill_id, accepted.execution_id)),
          (error: unknown) => {
            const violations = violationsOf(error);
            if (violations) fields.showViolations(violations, '/inputs');
            else replace(outcome, errorView(error));
          },
        );
    });
    return h('section', { class: 'try' }, h('h2', { id: 'try-it-heading' }, 'Try it'), form);
  }

  load().catch((error: unknown) => {
    if (!context.signal.aborted) replace(body, errorView(error));
  });
  return h('section', { class: 'page' }, heading, body);
}
