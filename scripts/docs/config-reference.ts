import type { TObject, TSchema } from '@sinclair/typebox';
import { GatewayConfigSchema } from '../../apps/gateway/src/config';
import { WorkerConfigSchema } from '../../apps/worker/src/config';
import { markdownTable } from './markdown-table';

/**
 * Defaults the config loaders derive when a setting is absent (the schema has none to show), and
 * SANDBOX_THREADS, whose schema default is this machine's core count: the page must not change
 * with the machine that generates it.
 */
const DERIVED_DEFAULTS: Record<string, string> = {
  PUBLIC_BASE_URL: '`http://localhost:$PORT`',
  PROVIDER_URL: '`PUBLIC_BASE_URL`',
  TASK_LINK_SECRET: 'made once, kept in Redis',
  SKILLS_DIR: "the repository's `skills/`",
  SKILLS_WATCH: '`true` in `npm start`, else `false`',
  WORKER_ID: '`hostname-pid`',
  SANDBOX_THREADS: 'the number of cores',
  WORKER_SKILLS: 'all found',
};

/** Settings whose schema has no description: the page says what they mean until the schema does. */
const UNDESCRIBED_IN_SCHEMA: Record<string, string> = {
  LOG_LEVEL: 'Least severe log level written (JSON lines on standard output).',
  WORKER_ID: 'Name of the worker in the registry, in `worker_id` and on its log lines.',
};

type Setting = TSchema & {
  type?: string;
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
  description?: string;
};

/** The settings of both processes, as three tables: shared, the gateway's own, the worker's own. */
export function configReference(): string {
  const gateway = GatewayConfigSchema as TObject;
  const worker = WorkerConfigSchema as TObject;
  const shared = Object.keys(gateway.properties).filter(
    (name) => worker.properties[name] !== undefined && sameSetting(gateway, worker, name),
  );
  const own = (schema: TObject) => Object.keys(schema.properties).filter((name) => !shared.includes(name));
  return [
    '### Gateway and worker',
    '',
    settingsTable(gateway, shared),
    '',
    '### Gateway',
    '',
    settingsTable(gateway, own(gateway)),
    '',
    '### Worker',
    '',
    settingsTable(worker, own(worker)),
  ].join('\n');
}

function sameSetting(a: TObject, b: TObject, name: string): boolean {
  return JSON.stringify(a.properties[name]) === JSON.stringify(b.properties[name]);
}

function settingsTable(schema: TObject, names: string[]): string {
  const rows = [...names].sort().map((name) => {
    const setting = schema.properties[name] as Setting;
    return [`\`${name}\``, defaultOf(name, setting, schema), valuesOf(setting), meaningOf(name, setting)];
  });
  return markdownTable(['variable', 'default', 'values', 'meaning'], rows);
}

function meaningOf(name: string, setting: Setting): string {
  const meaning = setting.description ?? UNDESCRIBED_IN_SCHEMA[name];
  if (meaning === undefined) throw new Error(`${name} has no description in its config schema`);
  return meaning;
}

function defaultOf(name: string, setting: Setting, schema: TObject): string {
  const derived = DERIVED_DEFAULTS[name];
  if (derived !== undefined) return derived;
  if (setting.default !== undefined) return `\`${String(setting.default)}\``;
  return schema.required?.includes(name) ? 'required' : 'none';
}

function valuesOf(setting: Setting): string {
  if (setting.enum) return setting.enum.map((value) => `\`${value}\``).join(', ');
  if (setting.type === 'boolean') return '`true`, `false`';
  if (setting.type === 'integer') return integerRange(setting);
  if (setting.pattern === '^https?://' || setting.format === 'uri') return 'a URL';
  if (setting.pattern?.startsWith('^rediss?://')) return 'a `redis://` or `rediss://` URL';
  if (setting.minLength !== undefined && setting.minLength > 1)
    return `text, ≥ ${setting.minLength} characters`;
  return 'text';
}

function integerRange({ minimum, maximum }: Setting): string {
  if (minimum !== undefined && maximum !== undefined) return `integer, ${minimum}–${maximum}`;
  if (minimum !== undefined) return `integer ≥ ${minimum}`;
  return 'integer';
}
