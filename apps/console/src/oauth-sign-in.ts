import { Api, ApiError } from './api';
import { session } from './session';
import { sha256 } from './sha256';

/** What GET /console/sign-in says of the authorization server, when the gateway has one. */
export interface OAuthSettings {
  authorization_url: string;
  client_id: string;
  scope?: string;
  resource: string;
}

/** What the gateway's exchange answers (POST /console/sign-in/token). */
interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/** What the tab remembers while the person is at the authorization server. */
interface Pending {
  state: string;
  verifier: string;
  /** The page they signed in from, to come back to. */
  hash: string;
}

const PENDING = 'skillrun.console.oauth';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = (bytes: number) => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

/** The console's one document, where the authorization server sends the browser back. */
const redirectUri = () => `${location.origin}${location.pathname}`;

/** How the gateway lets people sign in: `oauth2` when it has an authorization server. */
export async function oauthSettings(): Promise<OAuthSettings | undefined> {
  const answer = await new Api().request<{ oauth2?: OAuthSettings }>('/console/sign-in');
  return answer.oauth2;
}

/**
 * Sends the browser to the authorization server (the authorization code grant with PKCE, RFC 7636):
 * the verifier and the state stay in this tab's sessionStorage, only the S256 challenge goes out.
 */
export function signInAt(settings: OAuthSettings): void {
  const pending: Pending = { state: random(16), verifier: random(32), hash: location.hash };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(settings.authorization_url);
  const challenge = base64url(sha256(new TextEncoder().encode(pending.verifier)));
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: settings.client_id,
    redirect_uri: redirectUri(),
    state: pending.state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: settings.resource,
    ...(settings.scope === undefined ? {} : { scope: settings.scope }),
  })) {
    url.searchParams.set(name, value);
  }
  location.assign(url.toString());
}

/**
 * Back from the authorization server: the access token its code is exchanged for (by the gateway),
 * or why there is none; undefined when this page load is not such a return. The address loses the
 * code at once and shows the page the person signed in from.
 */
export async function returnFromSignIn(): Promise<
  { token: string; refreshToken?: string } | { error: string } | undefined
> {
  const params = new URLSearchParams(location.search);
  if (!params.has('state')) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Pending | null;
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `${location.pathname}${pending?.hash ?? ''}`);
  // A state this tab did not send is someone else's sign-in (RFC 6749 section 10.12).
  if (!pending || params.get('state') !== pending.state) {
    return { error: 'That sign-in was not started from this tab. Sign in again.' };
  }
  const code = params.get('code');
  if (!code) {
    return { error: `The authorization server did not sign you in (${params.get('error') ?? 'no code'}).` };
  }
  const answer = await new Api().request<Tokens>('/console/sign-in/token', {
    method: 'POST',
    json: { code, code_verifier: pending.verifier, redirect_uri: redirectUri() },
  });
  return { token: answer.access_token, ...refreshOf(answer) };
}

const refreshOf = (tokens: Tokens) =>
  tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token };

/**
 * A new access token for the tab's refresh token (the gateway makes the refresh token grant), kept
 * as the tab's credential; undefined when the tab has none or the authorization server refuses it
 * (revoked, expired, used twice), which ends the sign-in.
 */
export async function renewAccessToken(): Promise<string | undefined> {
  const refreshToken = session.refreshToken();
  if (refreshToken === undefined) return undefined;
  try {
    const answer = await new Api().request<Tokens>('/console/sign-in/token', {
      method: 'POST',
      json: { refresh_token: refreshToken },
    });
    session.renew(answer.access_token, refreshOf(answer).refreshToken);
    return answer.access_token;
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return undefined;
    throw error;
  }
}
