import { defineConfig, type Plugin } from 'vitest/config';

/** A `.lua` file imported as its text, as esbuild's text loader bundles it (scripts/bundle.mts). */
const luaText: Plugin = {
  name: 'lua-text',
  transform(script, id) {
    return id.endsWith('.lua') ? { code: `export default ${JSON.stringify(script)};`, map: null } : undefined;
  },
};

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [luaText],
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], sequence: { groupOrder: 0 } },
      },
      {
        plugins: [luaText],
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/build-apps.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // What a test polls for comes from other processes: on a loaded machine it can take seconds.
          expect: { poll: { timeout: 15_000 } },
          // Each file starts its own Redis and service processes; two cores run two files at once.
          maxWorkers: 2,
        },
      },
    ],
  },
});
