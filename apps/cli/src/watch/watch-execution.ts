import type { Execution, ExecutionRef, SkillrunClient } from '@skillrun/client';
import { SkillrunError } from '@skillrun/client';
import { CliError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import type { Terminal } from '../terminal';
import { ChunkPrinter } from './chunk-printer';
import { createLiveView } from './live-view';

/** What a Ctrl-C while watching exits with (128 + SIGINT), as shells expect. */
export const INTERRUPTED = 130;

export interface WatchOptions {
  json: boolean;
  /** Stop watching (exit 1) if it has not ended by then. */
  timeoutMs?: number;
}

/**
 * Follows an execution to its end (live status when the descriptor offers it, else polling),
 * drawing it on stderr and printing the output its skill streams on stdout as it comes (not with
 * --json: stdout is then the final state's JSON alone); resolves with its final state. Ctrl-C
 * stops watching, not the execution.
 */
export async function watchExecution(
  terminal: Terminal,
  client: SkillrunClient,
  ref: ExecutionRef,
  options: WatchOptions,
): Promise<Execution> {
  const view = createLiveView(terminal, `${ref.skillId} ${ref.executionId}`, options.json);
  const chunks = new ChunkPrinter(terminal);
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    const final = await client.wait(ref, {
      signal: controller.signal,
      onUpdate: (execution) => view.update(execution),
      ...(options.json
        ? {}
        : {
            onChunk: (chunk: unknown) => {
              if (!chunks.any) view.giveWay();
              chunks.print(chunk);
            },
          }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    chunks.endLine();
    view.end(final);
    return final;
  } catch (error) {
    chunks.endLine();
    view.end();
    const follow = `Follow it with \`skillrun status ${ref.skillId} ${ref.executionId} --wait\``;
    if (controller.signal.aborted) {
      throw new CliError('stopped watching; the execution goes on', INTERRUPTED, follow);
    }
    if (error instanceof SkillrunError && error.code === 'WAIT_TIMEOUT') {
      throw new CliError(
        `the execution had not ended within --timeout (last status: ${error.execution?.status ?? 'unknown'})`,
        ExitCode.Failed,
        follow,
      );
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}
