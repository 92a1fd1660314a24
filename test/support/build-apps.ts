import { APP_ENTRIES, bundle } from '../../scripts/bundle.mjs';

/**
 * Vitest's global setup for the integration tests: `npm run build` once, so that every gateway and
 * worker a test starts runs the bundle production runs, from the sources as they are now.
 */
export default async function buildApps(): Promise<void> {
  await bundle(APP_ENTRIES);
}
