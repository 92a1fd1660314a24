import { describe, expect, it } from 'vitest';
import { admitSession, type SessionUse } from '../../apps/gateway/src/agents/mcp/mcp-session-admission';

/** Sessions in order of last use, least recent first: [id, holder, requests being answered]. */
const sessions = (...open: [string, string, number?][]): [string, SessionUse][] =>
  open.map(([id, holder, answering = 0]) => [id, { holder, answering }]);

const alice = { key: 'caller:alice', cap: 2 };
const stranger = { key: 'address:203.0.113.9', cap: 2 };

describe('admitSession', () => {
  it('admits below every cap, closing nothing', () => {
    expect(admitSession(sessions(['s1', 'caller:alice']), alice, 3)).toEqual({ admit: true });
  });

  it("at a holder's own cap, closes its least recently used session that is not answering a request", () => {
    const open = sessions(
      ['s1', 'caller:bob'],
      ['s2', 'address:203.0.113.9', 1],
      ['s3', 'address:203.0.113.9'],
    );
    expect(admitSession(open, stranger, 100)).toEqual({ admit: true, evict: 's3' });
  });

  it('refuses a holder at its own cap with 429 when each of its sessions is answering, however few the gateway has', () => {
    const open = sessions(
      ['s1', 'caller:bob'],
      ['s2', 'address:203.0.113.9', 1],
      ['s3', 'address:203.0.113.9', 2],
    );
    const admission = admitSession(open, stranger, 100);
    expect(admission).toMatchObject({
      admit: false,
      refusal: { code: 'RATE_LIMIT_EXCEEDED', options: { details: { retry_after_seconds: 1 } } },
    });
    // Another holder is not counted against it.
    expect(admitSession(open, alice, 100)).toEqual({ admit: true });
  });

  it('at the gateway cap, closes the least recently used session that is not answering a request, whoever holds it', () => {
    const open = sessions(
      ['s1', 'address:203.0.113.9', 1],
      ['s2', 'address:203.0.113.9'],
      ['s3', 'caller:bob'],
    );
    expect(admitSession(open, alice, 3)).toEqual({ admit: true, evict: 's2' });
  });

  it('refuses with 503 only when every session is answering a request', () => {
    const open = sessions(['s1', 'caller:bob', 1], ['s2', 'caller:carol', 2]);
    expect(admitSession(open, alice, 2)).toMatchObject({
      admit: false,
      refusal: { code: 'SERVICE_UNAVAILABLE' },
    });
  });
});
