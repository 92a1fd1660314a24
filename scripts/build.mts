/**
 * `npm run build`: bundles the gateway, the worker and the standalone service into plain
 * JavaScript (`apps/<app>/dist/main.mjs`), so that production runs them under `node` without tsx's
 * loader (a thread of its own and ~33 MB of RSS per process) and without transpiling at start-up;
 * the console the gateway serves at /console (`apps/console/dist`); and @skillrun/skill's
 * declarations (`packages/skill/dist`), for skill folders outside the repository.
 */
import { APP_ENTRIES, buildSkillPackage, bundle, bundleConsole } from './bundle.mjs';

await Promise.all([bundle(APP_ENTRIES), bundleConsole(), buildSkillPackage()]);
