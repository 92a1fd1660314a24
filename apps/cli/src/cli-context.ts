import { readFile } from 'node:fs/promises';
import { SkillrunClient } from '@skillrun/client';
import type { InputSources } from './input-parser';
import { printWarning } from './print-report';
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
  /** The origins the client kept the credentials from (each said in a warning when it happened). */
  readonly withheldFrom: string[];
  /** What the process exits with once the command is done. */
  exitCode: number;
}

export const CLI_VERSION = '0.1.0';

export function createCliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  const terminal = new Terminal(process.stdout, process.stderr, env);
  const withheldFrom: string[] = [];
  return {
    terminal,
    env,
    sources: { readStdin, readFile: (path) => readFile(path, 'utf8') },
    client: (settings) =>
      createClient(settings, (origin) => {
        withheldFrom.push(origin);
        printWarning(terminal, withheldWarning(origin, settings), settings.json);
      }),
    withheldFrom,
    exitCode: 0,
  };
}

export function createClient(
  settings: Settings,
  onCredentialsWithheld?: (origin: string) => void,
): SkillrunClient {
  return new SkillrunClient({
    baseUrl: settings.baseUrl,
    ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
    ...(settings.bearerToken === undefined ? {} : { bearerToken: settings.bearerToken }),
    ...(settings.caller === undefined ? {} : { caller: settings.caller }),
    ...(onCredentialsWithheld === undefined ? {} : { onCredentialsWithheld }),
    headers: { 'user-agent': `skillrun-cli/${CLI_VERSION}` },
    // A person is waiting: a few quick retries, then say the service is away.
    retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
  });
}

/** Credentials kept from a link that leads away from the service: said, so that a refusal is understood. */
function withheldWarning(origin: string, settings: Settings): string {
  return `your credentials were not sent to ${origin}: it is not the service at ${settings.baseUrl}, nor where that service says it is. If it is the same service under another name, point --url (SKILLRUN_URL) at ${origin}`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
