import { readFile } from 'node:fs/promises';
import { SkillrunClient } from '@skillrun/client';
import type { InputSources } from './input-parser';
import type { Settings } from './settings';
import { Terminal } from './terminal';

/** What every command runs with: where it writes, where inputs come from, and how it reaches the service. */
export interface CliContext {
  readonly terminal: Terminal;
  readonly env: NodeJS.ProcessEnv;
  readonly sources: InputSources;
  /** A client for these settings (the SkillrunClient of @skillrun/client). */
  client(settings: Settings): SkillrunClient;
  /** The settings the running command resolved: for the hints of an error report. */
  settings?: Settings;
  /** What the process exits with once the command is done. */
  exitCode: number;
}

export const CLI_VERSION = '0.1.0';

export function createCliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  return {
    terminal: new Terminal(process.stdout, process.stderr, env),
    env,
    sources: { readStdin, readFile: (path) => readFile(path, 'utf8') },
    client: createClient,
    exitCode: 0,
  };
}

export function createClient(settings: Settings): SkillrunClient {
  return new SkillrunClient({
    baseUrl: settings.baseUrl,
    ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
    ...(settings.bearerToken === undefined ? {} : { bearerToken: settings.bearerToken }),
    ...(settings.caller === undefined ? {} : { caller: settings.caller }),
    headers: { 'user-agent': `skillrun-cli/${CLI_VERSION}` },
    // A person is waiting: a few quick retries, then say the service is away.
    retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
