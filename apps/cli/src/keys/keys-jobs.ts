import { parseArgs } from 'node:util';
import { assertRoleFitsScopes, NewApiKey, SchemaValidator, SkillError } from '@skillrun/core';
import type { ApiKeyStore } from '@skillrun/core/data';
import { KeysUsageError } from './keys-usage';

/** The work a keys command line asks for, checked before Redis is reached; resolves to the exit code. */
export type KeysJob = (store: ApiKeyStore) => Promise<number>;

const newApiKey = new SchemaValidator(NewApiKey, 'API key');

/** Reads `create|revoke|list ...`; throws KeysUsageError (or parseArgs' errors) on a bad line. */
export function parseKeysCommandLine(argv: string[]): KeysJob {
  const [command, ...args] = argv;
  switch (command) {
    case 'create':
      return createJob(args);
    case 'revoke':
      return revokeJob(args);
    case 'list':
      return listJob(args);
    default:
      throw new KeysUsageError(command === undefined ? 'no command given' : `unknown command "${command}"`);
  }
}

function createJob(args: string[]): KeysJob {
  const { values } = parseArgs({
    args,
    options: {
      caller: { type: 'string' },
      scopes: { type: 'string' },
      skills: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      'daily-budget': { type: 'string' },
    },
  });
  if (values.caller === undefined || values.scopes === undefined) {
    throw new KeysUsageError('create needs --caller and --scopes');
  }
  const request = validRequest({
    caller_id: values.caller,
    scopes: commaList(values.scopes),
    ...(values.skills === undefined ? {} : { skills: commaList(values.skills) }),
    ...(values.name === undefined ? {} : { name: values.name }),
    ...(values.role === undefined ? {} : { role: values.role }),
    ...(values['daily-budget'] === undefined ? {} : { daily_budget_usd: Number(values['daily-budget']) }),
  });
  return async (store) => {
    const { key, record } = await store.create({
      callerId: request.caller_id,
      scopes: request.scopes,
      skills: request.skills,
      name: request.name,
      role: request.role,
      dailyBudgetUsd: request.daily_budget_usd,
    });
    process.stdout.write(`${key}\n`);
    process.stderr.write(`${JSON.stringify(record)}\n`);
    return 0;
  };
}

function revokeJob(args: string[]): KeysJob {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true });
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new KeysUsageError('revoke needs exactly one key id');
  return async (store) => {
    if (!(await store.revoke(id))) {
      process.stderr.write(`keys: no API key has the id "${id}"\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(await store.get(id))}\n`);
    return 0;
  };
}

function listJob(args: string[]): KeysJob {
  const { values } = parseArgs({ args, options: { caller: { type: 'string' } } });
  return async (store) => {
    for (const record of await store.list(values.caller)) {
      process.stdout.write(`${JSON.stringify(record)}\n`);
    }
    return 0;
  };
}

function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function validRequest(data: unknown): NewApiKey {
  try {
    const request = newApiKey.parse(data);
    assertRoleFitsScopes(request);
    return request;
  } catch (error) {
    if (error instanceof SkillError && error.code === 'INVALID_INPUT')
      throw new KeysUsageError(error.message);
    throw error;
  }
}
