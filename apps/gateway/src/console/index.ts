export { CONSOLE_PATH, consoleRoutes } from './console-routes';
export { type ConsoleOAuth, consoleOAuthOf, consoleSignInRoutes, TokenExchange } from './console-sign-in';
export type { Fleet } from '../admin/fleet';
export { FleetOverview } from '../admin/fleet-overview';
export { fleetRoutes } from '../admin/fleet-routes';
