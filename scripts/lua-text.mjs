// Lets the TypeScript sources run under tsx import their `.lua` files (see
// packages/core/src/redis/lua-module.d.ts): `node --import tsx --import ./scripts/lua-text.mjs …`.
import { register } from 'node:module';

register('./lua-text-hooks.mjs', import.meta.url);
