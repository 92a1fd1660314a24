export { CONSOLE_PATH, consoleRoutes } from './console-routes';
