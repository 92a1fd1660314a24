import type { CallerIdentity } from '@skillrun/client';
import { Api, ApiError } from './api';
import { isAdmin, type PageContext, roleOf, seesEveryone } from './context';
import { h, replace } from './dom';
import { renewAccessToken, returnFromSignIn } from './oauth-sign-in';
import { approvalsPage } from './pages/approvals-page';
import { auditPage } from './pages/audit-page';
import { batchPage } from './pages/batch-page';
import { batchesPage } from './pages/batches-page';
import { executionPage } from './pages/execution-page';
import { executionsPage } from './pages/executions-page';
import { fleetPage } from './pages/fleet-page';
import { schedulePage } from './pages/schedule-page';
import { schedulesPage } from './pages/schedules-page';
import { signInPage } from './pages/sign-in-page';
import { skillPage } from './pages/skill-page';
import { skillsPage } from './pages/skills-page';
import { taskPage } from './pages/task-page';
import { tasksPage } from './pages/tasks-page';
import { session } from './session';

type Page = (context: PageContext) => HTMLElement;

/** The pages by their first segment after `#/`, each with the one it takes for its detail view. */
const PAGES: Record<string, { list: Page; detail: Page }> = {
  executions: { list: executionsPage, detail: executionPage },
  skills: { list: skillsPage, detail: skillPage },
  tasks: { list: tasksPage, detail: taskPage },
  approvals: { list: approvalsPage, detail: approvalsPage },
  schedules: { list: schedulesPage, detail: schedulePage },
  batches: { list: batchesPage, detail: batchPage },
  workers: { list: fleetPage, detail: fleetPage },
  audit: { list: auditPage, detail: auditPage },
};

const root = document.getElementById('app') as HTMLElement;

/** `#/executions/a/b?x=1` → ['executions', 'a', 'b'] and the query. */
function route(): { segments: string[]; query: URLSearchParams } {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = hash.split('?', 2);
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { segments, query: new URLSearchParams(search) };
}

/** Shows the console to the person signed in; answers how to end that (and why, to show then). */
function start(api: Api, me: CallerIdentity): (reason?: string) => void {
  let leave = new AbortController();
  const main = h('main', { id: 'main', tabindex: -1 });
  const pages = seesEveryone(me)
    ? [
        'executions',
        'skills',
        'tasks',
        'approvals',
        'schedules',
        'batches',
        'workers',
        ...(isAdmin(me) ? ['audit'] : []),
      ]
    : ['executions', 'skills', 'tasks', 'approvals', 'schedules', 'batches'];
  const links = pages.map((name) =>
    h('a', { href: `#/${name}`, 'data-page': name }, name[0]?.toUpperCase() + name.slice(1)),
  );
  const signOut = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () => end(),
    },
    'Sign out',
  );
  replace(
    root,
    h(
      'a',
      {
        href: '#main',
        class: 'skip-link',
        onclick: (event) => {
          event.preventDefault();
          main.focus();
        },
      },
      'Skip to content',
    ),
    h(
      'header',
      { class: 'top' },
      h('span', { class: 'brand' }, 'skillrun'),
      h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          {},
          links.map((a) => h('li', {}, a)),
        ),
      ),
      h(
        'div',
        { class: 'who' },
        h('span', { id: 'who' }, `${me.caller_id}${roleOf(me) ? ` (${roleOf(me)})` : ''}`),
        ' ',
        h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API docs'),
        isAdmin(me)
          ? [' ', h('a', { href: '/admin/queues', target: '_blank', rel: 'noopener' }, 'Queues')]
          : '',
        ' ',
        signOut,
      ),
    ),
    main,
  );

  let shown = false;
  function show(): void {
    leave.abort();
    leave = new AbortController();
    const { segments, query } = route();
    const [name = 'executions', ...params] = segments;
    const page = PAGES[name];
    if (!page) {
      location.hash = '#/executions';
      return;
    }
    for (const a of links) {
      if (a.dataset.page === name) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    const context: PageContext = {
      api,
      me,
      signal: leave.signal,
      params,
      query,
      navigate: (hash) => {
        if (location.hash === hash) show();
        else location.hash = hash;
      },
      title: (text) => {
        document.title = `${text} · skillrun console`;
        return h('h1', { tabindex: -1 }, text);
      },
    };
    const view = (params.length > 0 ? page.detail : page.list)(context);
    replace(main, view);
    // On a move to another page, the focus goes to its heading (a screen reader reads where it is);
    // on the first, it stays at the top, where Tab reaches the skip link first.
    if (shown) view.querySelector('h1')?.focus();
    shown = true;
  }

  function end(reason?: string): void {
    leave.abort();
    session.clear();
    window.removeEventListener('hashchange', show);
    boot(reason);
  }

  window.addEventListener('hashchange', show);
  show();
  return end;
}

const SIGN_IN_ENDED = 'Your sign-in has ended. Sign in again.';

/** Signs in with the tab's credential, or asks for one. */
function boot(reason?: string): void {
  const credential = session.get();
  const signIn = () =>
    replace(
      root,
      signInPage((given, api, me) => {
        session.set(given);
        start(api, me);
      }, reason),
    );
  if (!credential) {
    signIn();
    return;
  }
  // An expired access token is renewed with the refresh token, when the authorization server gave
  // one; when it cannot be, the person signs in again.
  let end: ((reason?: string) => void) | undefined;
  let ended = false;
  const renew = async () => {
    if (ended) return undefined;
    const token = await renewAccessToken();
    ended = token === undefined;
    if (ended) end?.(SIGN_IN_ENDED);
    return token;
  };
  const api = new Api(credential, session.refreshToken() === undefined ? undefined : renew);
  api.request<CallerIdentity>('/me').then(
    (me) => {
      end = start(api, me);
    },
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) session.clear();
      reason = ended ? SIGN_IN_ENDED : error instanceof ApiError ? error.message : String(error);
      signIn();
    },
  );
}

// Back from the authorization server, its token is the tab's credential (or the reason it has none).
returnFromSignIn().then(
  (result) => {
    if (result && 'token' in result) session.set(result.token, result.refreshToken);
    boot(result && 'error' in result ? result.error : undefined);
  },
  (error: unknown) => boot(error instanceof Error ? error.message : String(error)),
);
