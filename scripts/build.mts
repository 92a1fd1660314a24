/**
 * `npm run build`: bundles the gateway, the worker and the standalone service into plain
 * JavaScript (`apps/<app>/dist/main.mjs`), so that production runs them under `node` without tsx's
 * loader (a thread of its own and ~33 MB of RSS per process) and without transpiling at start-up;
 * and the console the gateway serves at /console (`apps/console/dist`).
 */
import { APP_ENTRIES, bundle, bundleConsole } from './bundle.mjs';

await Promise.all([bundle(APP_ENTRIES), bundleConsole()]);
