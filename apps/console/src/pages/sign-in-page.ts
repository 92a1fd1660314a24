import type { CallerIdentity } from '@skillrun/client';
import { Api, ApiError } from '../api';
import { h, replace } from '../dom';
import { errorView } from '../error-view';
import { oauthSettings, signInAt } from '../oauth-sign-in';

/**
 * The sign-in form: an API key (or an OAuth 2 access token), checked with `GET /me` before it is
 * kept; and, when the gateway has an authorization server, a button that signs in there instead.
 * Calls `onSignedIn` with the API and who it stands for.
 */
export function signInPage(
  onSignedIn: (credential: string, api: Api, me: CallerIdentity) => void,
  reason?: string,
): HTMLElement {
  const input = h('input', {
    id: 'credential',
    name: 'credential',
    type: 'password',
    autocomplete: 'off',
    required: true,
    'aria-describedby': 'credential-hint',
  });
  const outcome = h(
    'div',
    { class: 'action-result' },
    reason ? h('p', { class: 'notice notice-error', role: 'alert' }, reason) : '',
  );
  const form = h(
    'form',
    { class: 'sign-in', 'aria-labelledby': 'sign-in-heading' },
    h('h1', { id: 'sign-in-heading', tabindex: -1 }, 'Sign in to skillrun'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'credential' }, 'API key or access token'),
      input,
      h(
        'p',
        { class: 'hint', id: 'credential-hint' },
        'An API key (srk_…, or the admin key) or an OAuth 2 access token. Kept in this tab only.',
      ),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Sign in')),
    outcome,
    whereKeysComeFrom(),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const credential = input.value.trim();
    if (!credential) return;
    const api = new Api(credential);
    api.request<CallerIdentity>('/me').then(
      (me) => onSignedIn(credential, api, me),
      (error: unknown) =>
        replace(
          outcome,
          error instanceof ApiError && error.status === 401
            ? h(
                'p',
                { class: 'notice notice-error', role: 'alert' },
                'The service does not know this key or token.',
              )
            : errorView(error),
        ),
    );
  });
  const elsewhere = h('div', { class: 'sign-in-elsewhere' });
  oauthSettings().then(
    (settings) => {
      if (!settings) return;
      replace(
        elsewhere,
        h(
          'button',
          { type: 'button', onclick: () => signInAt(settings) },
          `Sign in at ${new URL(settings.authorization_url).host}`,
        ),
        h('p', { class: 'hint' }, 'Or paste an API key or access token below.'),
      );
      form.insertBefore(elsewhere, form.querySelector('.field'));
    },
    (error: unknown) => {
      // The gateway could not read the authorization server's endpoints: a key still works.
      if (!(error instanceof ApiError && error.status === 503)) return;
      replace(
        elsewhere,
        h('p', { class: 'hint' }, `Signing in at the authorization server: ${error.message}.`),
      );
      form.insertBefore(elsewhere, form.querySelector('.field'));
    },
  );
  queueMicrotask(() => input.focus());
  return h('main', { id: 'main', class: 'sign-in-page' }, form);
}

/** Where a first key comes from, so that a fresh console is not a dead end. */
function whereKeysComeFrom(): HTMLElement {
  return h(
    'section',
    { class: 'key-sources', 'aria-labelledby': 'key-sources-heading' },
    h('h2', { id: 'key-sources-heading' }, 'No key yet?'),
    h(
      'p',
      {},
      'A service started with ',
      h('code', {}, 'npm start'),
      ' keeps a local admin key in ',
      h('code', {}, '.data/admin-key'),
      ' in its repository (it prints where on start): paste what ',
      h('code', {}, 'cat .data/admin-key'),
      ' shows.',
    ),
    h(
      'p',
      {},
      'Anyone with access to its Redis makes keys with ',
      h('code', {}, 'npx skillrun keys create --caller you --scopes skill:invoke,skill:read'),
      ' (add ',
      h('code', {}, 'admin'),
      ' to the scopes to see everyone’s executions, or ',
      h('code', {}, '--role viewer'),
      ' or ',
      h('code', {}, 'operator'),
      ' to see them without managing keys); an admin also makes them with ',
      h('code', {}, 'POST /admin/keys'),
      '.',
    ),
  );
}
