/**
 * The credential the person signed in with, for this tab only (sessionStorage: gone when the tab
 * closes, never sent anywhere but in the API's own headers).
 */
const KEY = 'skillrun.console.credential';

export const session = {
  get(): string | undefined {
    return sessionStorage.getItem(KEY) ?? undefined;
  },
  set(credential: string): void {
    sessionStorage.setItem(KEY, credential);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};
