import { ApiError } from './api';
import { h } from './dom';
import { jsonView } from './json-view';

/** A refusal shown to the person: its code, message and suggested action, and the whole envelope. */
export function errorView(error: unknown): HTMLElement {
  if (!(error instanceof ApiError)) {
    return h('div', { class: 'notice notice-error', role: 'alert' }, String(error));
  }
  return h(
    'div',
    { class: 'notice notice-error', role: 'alert' },
    h('p', {}, h('strong', {}, error.body.code), ` (${error.status}): ${error.body.message}`),
    error.body.suggested_action ? h('p', {}, error.body.suggested_action) : '',
    error.body.details === undefined
      ? ''
      : h('details', {}, h('summary', {}, 'Details'), jsonView(error.body.details, 'Error details')),
  );
}
