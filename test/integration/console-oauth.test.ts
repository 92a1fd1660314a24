import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationServer, startAuthorizationServer } from '../support/authorization-server';
import { Client } from '../support/client';
import { CONSOLE_HOST, ConsoleTab, launchChromium } from '../support/console-browser';
import { TestSystem } from '../support/system';

/**
 * Signing in to the console at an OAuth 2 authorization server (the authorization code grant with
 * PKCE), in Chromium, against a real gateway and a real authorization server: a second HTTP
 * service with its own sign-in page, whose tokens the gateway verifies against its JWKS.
 */
describe('the console, signing in at an authorization server', () => {
  let idp: AuthorizationServer;
  let system: TestSystem;
  let browser: Browser;
  let origin: string;
  let tab: ConsoleTab | undefined;

  beforeAll(async () => {
    idp = await startAuthorizationServer();
    [system, browser] = await Promise.all([
      TestSystem.start({
        OAUTH_ISSUER: idp.issuer,
        OAUTH_AUDIENCE: idp.audience,
        OAUTH_JWKS_URL: idp.jwksUrl,
        // Its endpoints come from its discovery document.
        CONSOLE_OAUTH_CLIENT_ID: idp.clientId,
        CONSOLE_OAUTH_SCOPE: 'skill:read skill:invoke',
      }),
      launchChromium(),
    ]);
    origin = system.gateway.url.replace('127.0.0.1', CONSOLE_HOST);
    idp.allowRedirect(`${origin}/console/`);
  });
  afterEach(async () => {
    if (!tab) return;
    // The authorization server's page is the only other host the browser went to.
    expect(tab.foreignRequests.filter((url) => !url.startsWith(`${idp.issuer}/`))).toEqual([]);
    expect(tab.pageErrors).toEqual([]);
    await tab.close();
    tab = undefined;
  });
  /** Waits until the gateway refuses an access token that expired (it allows 5 s of clock skew). */
  async function refusedOnceExpired(token: string | null): Promise<void> {
    const headers = { authorization: `Bearer ${token}` };
    await expect
      .poll(async () => (await system.client.request('/me', { headers })).status, {
        timeout: 20_000,
        interval: 250,
      })
      .toBe(401);
  }

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await idp?.close();
  });

  it("signs in at the authorization server's page and comes back signed in, where it left", async () => {
    tab = await ConsoleTab.open(browser, origin, '/console/#/skills');
    const { page } = tab;
    await page.getByRole('button', { name: `Sign in at ${new URL(idp.issuer).host}` }).click();
    await page.waitForURL((url) => url.href.startsWith(idp.authorizationUrl));
    const asked = new URL(page.url()).searchParams;
    expect(Object.fromEntries(asked)).toEqual({
      response_type: 'code',
      client_id: idp.clientId,
      redirect_uri: `${origin}/console/`,
      state: expect.stringMatching(/^[\w-]{22}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
      resource: idp.audience,
      scope: 'skill:read skill:invoke',
    });
    await page.getByLabel('User').fill('alice');
    await page.getByRole('button', { name: 'Allow' }).click();

    await page.getByRole('heading', { name: 'Skills' }).waitFor();
    expect(await page.locator('#who').textContent()).toBe('alice');
    // The code is gone from the address; the page is the one signed in from.
    expect(new URL(page.url()).search).toBe('');
    expect(new URL(page.url()).hash).toBe('#/skills');
    // The gateway exchanged the code with the verifier whose S256 the browser sent, once.
    expect(idp.tokenRequests).toHaveLength(1);
    expect(idp.tokenRequests[0]).toMatchObject({
      granted: true,
      params: { client_id: idp.clientId, resource: idp.audience, redirect_uri: `${origin}/console/` },
    });
    // The tab keeps the access token, a JWT, which the gateway takes as alice's (the console asked
    // GET /me with it to show who is signed in).
    const credential = await page.evaluate("sessionStorage.getItem('skillrun.console.credential')");
    expect(credential).toMatch(/^eyJ/);
    const me = await system.client.request('/me', { headers: { authorization: `Bearer ${credential}` } });
    expect(me.body).toMatchObject({ caller_id: 'alice', method: 'oauth2' });
  });

  it('renews an expired access token with its refresh token, and asks to sign in again once that is refused', async () => {
    idp.accessTokenSeconds = 1;
    tab = await ConsoleTab.open(browser, origin, '/console/#/skills');
    const { page } = tab;
    await page.getByRole('button', { name: /^Sign in at / }).click();
    await page.getByLabel('User').fill('bob');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Skills' }).waitFor();
    const stored = () =>
      page.evaluate(`({
        credential: sessionStorage.getItem('skillrun.console.credential'),
        refresh: sessionStorage.getItem('skillrun.console.refresh'),
      })`) as Promise<{ credential: string | null; refresh: string | null }>;
    const first = await stored();
    expect(first.refresh).toMatch(/^[\w-]{36}$/);
    await refusedOnceExpired(first.credential);

    await page.evaluate("location.hash = '#/executions'");
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    // bob has none: the list was read (with the renewed token), not refused.
    await page.getByText('No executions match.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    // One refresh grant for every request the expired token had refused; the server rotated the
    // refresh token, and the new access token is bob's.
    const renewals = idp.tokenRequests.filter((request) => request.params.grant_type === 'refresh_token');
    expect(renewals).toEqual([
      {
        granted: true,
        params: {
          grant_type: 'refresh_token',
          refresh_token: first.refresh,
          client_id: idp.clientId,
          resource: idp.audience,
        },
      },
    ]);
    const renewed = await stored();
    expect(renewed.credential).not.toBe(first.credential);
    expect(renewed.refresh).not.toBe(first.refresh);
    const me = await system.client.request('/me', {
      headers: { authorization: `Bearer ${renewed.credential}` },
    });
    expect(me.body).toMatchObject({ caller_id: 'bob', method: 'oauth2' });

    // Signed out at the authorization server: the next expiry ends the console's sign-in.
    idp.revokeRefreshTokens();
    await refusedOnceExpired(renewed.credential);
    await page.evaluate("location.hash = '#/tasks'");
    await page.getByText('Your sign-in has ended. Sign in again.').waitFor();
    expect(await stored()).toEqual({ credential: null, refresh: null });
    idp.accessTokenSeconds = 300;
    // The browser logged each refused request.
    expect(tab.pageErrors.every((text) => /status of (400|401)/.test(text))).toBe(true);
    tab.pageErrors.length = 0;
  });

  it('says why when the person denies it, or when a return was not started from this tab', async () => {
    tab = await ConsoleTab.open(browser, origin);
    const { page } = tab;
    await page.getByRole('button', { name: /^Sign in at / }).waitFor();
    expect(await tab.accessibilityViolations()).toEqual([]);
    await tab.screenshot('sign-in');
    await page.getByRole('button', { name: /^Sign in at / }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('The authorization server did not sign you in (access_denied).').waitFor();
    expect(new URL(page.url()).search).toBe('');

    await page.goto(`${origin}/console/?code=stolen&state=someone-elses`);
    await page.getByText('That sign-in was not started from this tab. Sign in again.').waitFor();
    expect(idp.tokenRequests.filter((request) => request.params.code === 'stolen')).toEqual([]);
  });

  it('answers a code the authorization server refuses, or a bad exchange, with the error envelope', async () => {
    const exchange = (body: unknown) => system.client.request('/console/sign-in/token', { json: body });
    const refused = await exchange({
      code: 'not-a-code',
      code_verifier: 'v'.repeat(43),
      redirect_uri: `${origin}/console/`,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: { code: 'INVALID_INPUT', message: 'The authorization server refused the code: invalid_grant' },
    });
    const short = await exchange({ code: 'x', code_verifier: 'short', redirect_uri: `${origin}/console/` });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    const settings = await system.client.request('/console/sign-in');
    expect(settings.body).toEqual({
      oauth2: {
        authorization_url: idp.authorizationUrl,
        client_id: idp.clientId,
        scope: 'skill:read skill:invoke',
        resource: idp.audience,
      },
    });
  });

  it('takes the endpoints it is given over those the issuer publishes, and says when it cannot read them', async () => {
    const given = await system.addGateway({
      OAUTH_AUTHORIZATION_URL: `${idp.authorizationUrl}?prompt=login`,
      OAUTH_TOKEN_URL: idp.tokenUrl,
    });
    const settings = await new Client(given.url).request<{ oauth2: { authorization_url: string } }>(
      '/console/sign-in',
    );
    expect(settings.body.oauth2.authorization_url).toBe(`${idp.authorizationUrl}?prompt=login`);

    // An issuer with no discovery document (nothing answers there).
    const lost = await system.addGateway({ OAUTH_ISSUER: 'http://127.0.0.1:9' });
    const unreadable = await new Client(lost.url).request('/console/sign-in');
    expect([unreadable.status, unreadable.body.error]).toEqual([
      503,
      expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }),
    ]);
    // Its console says so, and still takes a key.
    tab = await ConsoleTab.open(browser, lost.url.replace('127.0.0.1', CONSOLE_HOST));
    await tab.page.getByText(/^Signing in at the authorization server: .+ cannot be read\.$/).waitFor();
    await tab.page.getByLabel('API key or access token').waitFor();
    expect(tab.pageErrors).toEqual([expect.stringMatching(/status of 503/)]);
    tab.pageErrors.length = 0;
  });
});
