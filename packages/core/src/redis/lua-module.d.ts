/**
 * A `.lua` file imported as its text (`import TRANSITION_LUA from './transition.lua'`), so that each
 * script lives in a file of its own, with its header, and still reaches `redisScript` as a string.
 * Every way the code runs supplies the same loader: esbuild's text loader in the bundles
 * (scripts/bundle.mts, the worker's module-bundler.ts), a plugin under Vitest (vitest.config.ts),
 * a load hook under tsx (scripts/lua-text.mjs).
 */
declare module '*.lua' {
  const script: string;
  export default script;
}
