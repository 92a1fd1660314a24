/** The port a gateway listens on when PORT does not say. */
export const DEFAULT_PORT = 3000;

/**
 * Where a service on this machine is reached: the base URL a gateway advertises (its descriptors'
 * links) when PUBLIC_BASE_URL does not say, and so the service the command line talks to by
 * default. One spelling for both, since credentials go by origin (`localhost` and `127.0.0.1` are
 * two origins).
 */
export function localBaseUrl(port: number = DEFAULT_PORT): string {
  return `http://localhost:${port}`;
}
