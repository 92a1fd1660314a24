/**
 * The credential the person signed in with, and the refresh token that renews it when an
 * authorization server gave one, for this tab only (sessionStorage: gone when the tab closes, never
 * sent anywhere but in the API's own headers and, for the refresh token, to the gateway's exchange).
 */
const KEY = 'skillrun.console.credential';
const REFRESH = 'skillrun.console.refresh';

export const session = {
  get(): string | undefined {
    return sessionStorage.getItem(KEY) ?? undefined;
  },
  refreshToken(): string | undefined {
    return sessionStorage.getItem(REFRESH) ?? undefined;
  },
  /** Signed in: this credential, renewed with this refresh token or not at all. */
  set(credential: string, refreshToken?: string): void {
    sessionStorage.setItem(KEY, credential);
    if (refreshToken === undefined) sessionStorage.removeItem(REFRESH);
    else sessionStorage.setItem(REFRESH, refreshToken);
  },
  /** Renewed: a refresh token given with the new credential replaces the one kept (rotation). */
  renew(credential: string, refreshToken?: string): void {
    this.set(credential, refreshToken ?? this.refreshToken());
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(REFRESH);
  },
};
