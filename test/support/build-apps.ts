import { APP_ENTRIES, buildSkillPackage, bundle, bundleConsole } from '../../scripts/bundle.mjs';

/**
 * Vitest's global setup for the integration tests: `npm run build` once, so that every gateway and
 * worker a test starts runs the bundle production runs (and the console the gateway serves, and
 * the @skillrun/skill a skill outside the repository installs), from the sources as they are now.
 */
export default async function buildApps(): Promise<void> {
  await Promise.all([bundle(APP_ENTRIES), bundleConsole(), buildSkillPackage()]);
}
