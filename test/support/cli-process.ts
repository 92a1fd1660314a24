import { spawn } from 'node:child_process';
import { repoRoot } from './service-process';

/** The `skillrun` bin as installed (the workspace's bin, which `npx skillrun` runs). */
export const SKILLRUN_BIN = 'apps/cli/bin/skillrun.mjs';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `skillrun` binary to its end, from the repository's root, with only `env` set. */
export function runSkillrun(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; bin?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? SKILLRUN_BIN, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
