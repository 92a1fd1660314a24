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

/** Seconds a refused client waits before it asks again: a request of its sessions may have been answered. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Whether a new session of `holder` opens, given the sessions open on this gateway, least recently
 * used first. A session not answering a request may be closed to make room: its client gets 404 at
 * its next request and initializes again, as the specification asks (and most clients end a
 * session by closing their connection, never with DELETE, so idle sessions are mostly abandoned).
 * A holder at its own cap gives up its least recently used idle session; with none idle it is
 * refused with 429 (its own load, which passes as its requests are answered: not the gateway's
 * state, which 503 would say). A gateway at `maxSessions` closes the least recently used idle
 * session, whoever holds it, so that one client's sessions cannot keep everyone else out; only
 * when every session is answering a request is the new one refused (503). No I/O: one pass.
 */
export function admitSession(
  open: Iterable<[string, SessionUse]>,
  holder: SessionHolder,
  maxSessions: number,
): Admission {
  let held = 0;
  let total = 0;
  let idlest: string | undefined;
  let ownIdlest: string | undefined;
  for (const [id, session] of open) {
    total++;
    const idle = session.answering === 0;
    if (idle) idlest ??= id;
    if (session.holder !== holder.key) continue;
    held++;
    if (idle) ownIdlest ??= id;
  }
  if (held >= holder.cap) {
    if (ownIdlest !== undefined) return { admit: true, evict: ownIdlest };
    return refused(
      'RATE_LIMIT_EXCEEDED',
      `At most ${holder.cap} MCP sessions a caller (or anonymous address) on one gateway, and each of yours is answering a request: use one of them, or retry`,
    );
  }
  if (total < maxSessions) return { admit: true };
  if (idlest !== undefined) return { admit: true, evict: idlest };
  return refused('SERVICE_UNAVAILABLE', 'Every MCP session this gateway keeps is answering a request; retry');
}

function refused(code: 'RATE_LIMIT_EXCEEDED' | 'SERVICE_UNAVAILABLE', message: string): Admission {
  return {
    admit: false,
    refusal: new SkillError(code, message, { details: { retry_after_seconds: RETRY_AFTER_SECONDS } }),
  };
}
