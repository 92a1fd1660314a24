export { CONSOLE_PATH, consoleRoutes } from './console-routes';
export { CodeExchange, type ConsoleOAuth, consoleOAuthOf, consoleSignInRoutes } from './console-sign-in';
export type { Fleet } from './fleet';
export { FleetOverview } from './fleet-overview';
export { fleetRoutes } from './fleet-routes';
