/** Where one quota stands after a request, as the IETF RateLimit fields describe it. */
export interface QuotaState {
  /** The policy's name, the same in both fields. */
  policy: string;
  quota: number;
  remaining: number;
  /** Rate limits: the window and the seconds until it resets. Concurrency quotas have neither. */
  windowSeconds?: number;
  resetSeconds?: number;
  /** The quota's unit (`qu`) when it counts neither requests nor concurrent ones (a budget: usd-micros). */
  unit?: string;
}

/**
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-08 and later): one list
 * item per quota, e.g. `"skill";q=10;w=60` and `"skill";r=3;t=42`; a concurrency quota counts
 * `concurrent-requests` and has no window.
 */
export function rateLimitHeaders(states: QuotaState[]): Record<string, string> {
  if (states.length === 0) return {};
  const policies = states.map((state) =>
    state.windowSeconds === undefined
      ? `"${state.policy}";q=${state.quota};qu="concurrent-requests"`
      : `"${state.policy}";q=${state.quota};w=${state.windowSeconds}${state.unit ? `;qu="${state.unit}"` : ''}`,
  );
  const current = states.map(
    (state) =>
      `"${state.policy}";r=${state.remaining}${state.resetSeconds === undefined ? '' : `;t=${state.resetSeconds}`}`,
  );
  return { 'RateLimit-Policy': policies.join(', '), RateLimit: current.join(', ') };
}

/**
 * The fields of two checks in one answer (rate limits, then concurrency quotas): a field both name
 * is one list of their items, as RFC 9110 (5.3) combines repeated field lines.
 */
export function joinRateLimitHeaders(
  first: Record<string, string>,
  second: Record<string, string>,
): Record<string, string> {
  const joined = { ...first };
  for (const [name, value] of Object.entries(second)) {
    const before = joined[name];
    joined[name] = before === undefined ? value : `${before}, ${value}`;
  }
  return joined;
}
