import type { CallerIdentity } from '@skillrun/client';
import type { Api } from './api';

/** What a page is given: the API as the person signed in, who that is, and its lifetime. */
export interface PageContext {
  api: Api;
  me: CallerIdentity;
  /** Aborted when the person leaves the page: its streams and timers stop. */
  signal: AbortSignal;
  /** The path's segments after the page's own (`#/executions/a/b` → ['a', 'b']). */
  params: string[];
  query: URLSearchParams;
  navigate(hash: string): void;
  /** Sets the document's title and the page's heading, which takes the focus (for screen readers). */
  title(text: string): HTMLHeadingElement;
}

/** The role the person acts in, as the gateway decides it (role-of.ts): absent, a caller's. */
export function roleOf(me: CallerIdentity): CallerIdentity['role'] {
  return me.role ?? (me.scopes.includes('admin') ? 'admin' : undefined);
}

export function isAdmin(me: CallerIdentity): boolean {
  return roleOf(me) === 'admin';
}

/** Every role sees every caller's executions (a viewer without their inputs and outputs). */
export function seesEveryone(me: CallerIdentity): boolean {
  return roleOf(me) !== undefined;
}

/** An operator or an admin pauses skills and manages everyone's schedules. */
export function operates(me: CallerIdentity): boolean {
  return roleOf(me) === 'operator' || roleOf(me) === 'admin';
}

/** Whether inputs, outputs and streamed chunks are shown: to all but a viewer. */
export function seesPayloads(me: CallerIdentity): boolean {
  return roleOf(me) !== 'viewer';
}

/** Whether this caller may cancel, replay and invoke (the `skill:invoke` scope, or admin; never a viewer). */
export function mayInvoke(me: CallerIdentity): boolean {
  return seesPayloads(me) && (isAdmin(me) || me.scopes.includes('skill:invoke'));
}

/** A hash link: `#/executions/skill/id` from its segments, each encoded. */
export function link(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}

/** Runs `tick` every `ms` until the page's signal aborts (not while the tab is hidden). */
export function every(signal: AbortSignal, ms: number, tick: () => void): void {
  const timer = setInterval(() => {
    if (document.visibilityState !== 'hidden') tick();
  }, ms);
  signal.addEventListener('abort', () => clearInterval(timer));
}
