export { CONSOLE_PATH, consoleRoutes } from './console-routes';
export { type Fleet, FleetOverview } from './fleet-overview';
export { fleetRoutes } from './fleet-routes';
