import { SkillError } from '@skillrun/core';

/** What admission needs to know of an open MCP session. */
export interface SessionUse {
  /** Whom it counts against: `caller:<id>`, or `address:<ip>` for an anonymous client. */
  holder: string;
  /** Its POSTs being answered (a tools/call waiting for its skill, a tasks/result): busy while any. */
  answering: number;
}

/** Who asks for a new session, and how many it may hold. */
export interface SessionHolder {
  key: string;
  /** MCP_MAX_SESSIONS_PER_CALLER for a caller, MCP_MAX_SESSIONS_PER_ADDRESS for an anonymous address. */
  cap: number;
}

export type Admission =
  | { admit: true /** The session to close first, to make room. */; evict?: string }
  | { admit: false; refusal: SkillError };

/**
 * Whether a new session of `holder` opens, given the sessions open on this gateway, least recently
 * used first. A holder at its own cap is refused (429: it is this client's use, which waiting does
 * not change, not the gateway's state; it can close or reuse a session of its own). A gateway at
 * `maxSessions` makes room by closing the least recently used session with no POST being
 * answered, whoever holds it: its client gets 404 at its next request and initializes again, as
 * the specification asks, and one client's forgotten sessions cannot keep everyone else out. Only
 * when every session is answering a request is the new one refused (503). No I/O: one pass over
 * the sessions.
 */
export function admitSession(
  open: Iterable<[string, SessionUse]>,
  holder: SessionHolder,
  maxSessions: number,
): Admission {
  let held = 0;
  let total = 0;
  let idlest: string | undefined;
  for (const [id, session] of open) {
    total++;
    if (session.holder === holder.key) held++;
    if (idlest === undefined && session.answering === 0) idlest = id;
  }
  if (held >= holder.cap) {
    return {
      admit: false,
      refusal: new SkillError(
        'RATE_LIMIT_EXCEEDED',
        `At most ${holder.cap} MCP sessions a caller (or anonymous address) on one gateway: reuse one, or end one (DELETE /mcp) first`,
      ),
    };
  }
  if (total < maxSessions) return { admit: true };
  if (idlest === undefined) {
    return {
      admit: false,
      refusal: new SkillError(
        'SERVICE_UNAVAILABLE',
        'Every MCP session this gateway keeps is answering a request; retry',
      ),
    };
  }
  return { admit: true, evict: idlest };
}
