import type { Static, TObject } from '@sinclair/typebox';
import { createAjv } from '../validation/create-ajv';

const ajv = createAjv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: true });

/**
 * Raised when the environment does not describe a configuration this process can run with (a value
 * that is not valid, a port already in use); the message is for operators and names the setting.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads the settings a schema declares from an environment (strings are coerced to the declared
 * types, defaults filled in) and returns them frozen. Unset and empty variables count as absent.
 */
export function parseEnv<T extends TObject>(schema: T, env: NodeJS.ProcessEnv): Readonly<Static<T>> {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const validate = ajv.compile(schema);
  if (!validate(picked)) {
    const problems = (validate.errors ?? []).map((error) => {
      const key = error.instancePath.slice(1) || String(error.params.additionalProperty ?? '');
      const given = key in picked ? ` (got ${JSON.stringify(env[key])})` : '';
      return `  ${key}: ${error.message}${given}`;
    });
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  return Object.freeze(picked as Static<T>);
}
