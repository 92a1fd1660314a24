export { CONSOLE_PATH, consoleRoutes } from './console-routes';
export { type ConsoleOAuth, consoleOAuthOf, consoleSignInRoutes, TokenExchange } from './console-sign-in';
export type { Fleet } from './fleet';
export { FleetOverview } from './fleet-overview';
export { fleetRoutes } from './fleet-routes';
