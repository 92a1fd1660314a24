import { describe, expect, it } from 'vitest';
import type { CredentialSources } from '../../apps/gateway/src/auth/authenticator';
import { Identities } from '../../apps/gateway/src/auth/identities';
import type { Identity } from '../../apps/gateway/src/auth/identity';
import type { RequestHeaders } from '../../apps/gateway/src/http/request-headers';

const PRINCIPAL: Identity = {
  kind: 'principal',
  principal: { callerId: 'c1', scopes: [], method: 'api_key' },
};

/** An authenticator that counts what it is asked, answering each ask with `answer`. */
function countingAuthenticator(answer: () => Promise<Identity>) {
  const asked: CredentialSources[] = [];
  return {
    asked,
    identify(_headers: RequestHeaders, sources: CredentialSources = {}) {
      asked.push(sources);
      return answer();
    },
  };
}

describe('Identities', () => {
  it('asks the authenticator once per request and credential sources', async () => {
    const authenticator = countingAuthenticator(async () => PRINCIPAL);
    const identities = new Identities(authenticator);
    const headers: RequestHeaders = { 'x-api-key': 'srk_one' };
    await Promise.all([identities.of(headers), identities.of(headers), identities.of(headers, {})]);
    await identities.of(headers, { header: 'x-skill-key' });
    await identities.of(headers, { header: 'x-skill-key' });
    await identities.of(headers, { bodyKey: 'srk_body' });
    await identities.of(headers, { bodyKey: 42 });
    expect(authenticator.asked).toEqual([{}, { header: 'x-skill-key' }, { bodyKey: 'srk_body' }]);
  });

  it('asks again for another request', async () => {
    const authenticator = countingAuthenticator(async () => PRINCIPAL);
    const identities = new Identities(authenticator);
    await identities.of({ 'x-api-key': 'srk_one' });
    await identities.of({ 'x-api-key': 'srk_one' });
    expect(authenticator.asked).toHaveLength(2);
  });

  it('keeps no failure: a later ask in the same request tries again', async () => {
    let calls = 0;
    const authenticator = countingAuthenticator(async () => {
      calls += 1;
      if (calls === 1) throw new Error('Connection is closed.');
      return PRINCIPAL;
    });
    const identities = new Identities(authenticator);
    const headers: RequestHeaders = { 'x-api-key': 'srk_one' };
    await expect(identities.of(headers)).rejects.toThrow('Connection is closed.');
    await expect(identities.of(headers)).resolves.toEqual(PRINCIPAL);
  });
});
