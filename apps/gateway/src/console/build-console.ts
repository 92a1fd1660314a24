import type { GatewayShared } from '../gateway-shared';
import type { Slice } from '../http/slice';
import { consolePaths } from './console-paths';
import { CONSOLE_PATH, consoleRoutes } from './console-routes';
import { consoleOAuthOf, consoleSignInRoutes } from './console-sign-in';

/** The operations console at /console, and how it signs people in. */
export function buildConsole(shared: GatewayShared): Slice {
  return {
    routes: [
      { path: `${CONSOLE_PATH}/sign-in`, router: consoleSignInRoutes(consoleOAuthOf(shared.config)) },
      { path: CONSOLE_PATH, router: consoleRoutes() },
    ],
    paths: consolePaths,
  };
}
