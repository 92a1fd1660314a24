import { spawn } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { repoRoot } from './service-process';

/** The `skillrun` bin as installed (the workspace's bin, which `npx skillrun` runs). */
export const SKILLRUN_BIN = 'apps/cli/bin/skillrun.mjs';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `skillrun` binary to its end, from the repository's root (or `cwd`), with only `env` set. */
export function runSkillrun(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; bin?: string; cwd?: string } = {},
): Promise<CliRun> {
  const bin = resolvePath(repoRoot, options.bin ?? SKILLRUN_BIN);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? repoRoot,
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
