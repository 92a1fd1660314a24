import { query } from '../api';
import { link, type PageContext } from '../context';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import type { SkillPage } from '../protocol';

/** #/skills: the catalogue (each skill at its latest version), searched by words, a page at a time. */
export function skillsPage(context: PageContext): HTMLElement {
  const heading = context.title('Skills');
  const q = context.query.get('q') ?? '';
  const input = h('input', { id: 'skill-search', name: 'q', type: 'search', value: q });
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Search skills' },
    h('div', { class: 'field' }, h('label', { for: 'skill-search' }, 'Search'), input),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Search')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const words = input.value.trim();
    context.navigate(`#/skills${words ? `?${new URLSearchParams({ q: words })}` : ''}`);
  });
  const results = h('div', { class: 'results', 'aria-live': 'polite' });
  const more = h('div', { class: 'pager' });

  async function load(cursor?: string): Promise<void> {
    try {
      const page = await context.api.request<SkillPage>(`/skills${query({ q, limit: 50, cursor })}`, {
        signal: context.signal,
      });
      let body = results.querySelector('tbody');
      if (!cursor || !body) {
        body = h('tbody');
        replace(
          results,
          page.skills.length === 0
            ? h('p', { class: 'empty' }, 'No skills match.')
            : h(
                'table',
                { class: 'skills' },
                h('caption', { class: 'visually-hidden' }, 'Skills'),
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    ['Skill', 'Version', 'Capability', 'Description', 'Tags'].map((label) =>
                      h('th', { scope: 'col' }, label),
                    ),
                  ),
                ),
                body,
              ),
        );
      }
      for (const skill of page.skills) {
        body.append(
          h(
            'tr',
            {},
            h('td', {}, h('a', { href: link('skills', skill.id) }, skill.id)),
            h(
              'td',
              {},
              skill.version,
              skill['x-deprecated'] ? h('span', { class: 'tag deprecated' }, ' deprecated') : '',
            ),
            h('td', {}, skill.capability_type),
            h('td', {}, skill.description),
            h('td', {}, (skill.tags ?? []).join(', ')),
          ),
        );
      }
      replace(
        more,
        page.next_cursor
          ? h(
              'button',
              { type: 'button', onclick: () => void load(page.next_cursor ?? undefined) },
              'More skills',
            )
          : '',
      );
    } catch (error) {
      if (!context.signal.aborted) replace(results, errorView(error));
    }
  }

  void load();
  return h('section', { class: 'page' }, heading, form, results, more);
}
