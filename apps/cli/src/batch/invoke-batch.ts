import type { BatchAccepted, BatchView, SkillrunClient } from '@skillrun/client';
import type { CliContext } from '../cli-context';
import { CliError, UsageError } from '../cli-error';
import { ExitCode } from '../exit-codes';
import { styledStatus } from '../format/status-style';
import type { Settings } from '../settings';
import { INTERRUPTED } from '../watch/watch-execution';
import { batchItems } from './batch-items';

export interface BatchRun {
  /** The items' file, or `-` for stdin. */
  file: string;
  /** The skill of the lines that name none. */
  skill: string | undefined;
  wait: boolean;
  timeoutMs?: number;
  idempotencyKey?: string;
}

/**
 * `invoke --batch items.jsonl`: one POST /batches. Prints the batch id, then each item's execution
 * id or error in the items' order; with --wait, follows the batch to its end (its counts on stderr
 * as they change) and prints each execution's final status. Exit 0 when every item started (and,
 * with --wait, completed), else 1.
 */
export async function invokeBatch(context: CliContext, settings: Settings, run: BatchRun): Promise<void> {
  const { terminal } = context;
  const from = run.file === '-' ? 'standard input' : run.file;
  const items = batchItems(await itemsText(context, run.file), from, run.skill);
  const client = context.client(settings);
  const accepted = await client.batch(
    items,
    run.idempotencyKey === undefined ? {} : { idempotencyKey: run.idempotencyKey },
  );
  const refused = accepted.executions.filter((slot) => 'error' in slot).length;
  if (settings.json) terminal.json(accepted);
  else printAccepted(context, accepted);
  if (!run.wait) {
    context.exitCode = refused > 0 ? ExitCode.Failed : ExitCode.Ok;
    return;
  }
  const ended = await followBatch(context, client, accepted.batch_id, run.timeoutMs);
  if (settings.json) terminal.json(ended);
  else
    for (const { execution_id, status } of ended.executions)
      terminal.out(`${styledStatus(terminal, status)} ${execution_id}`);
  const completed = ended.counts.completed === ended.executions.length;
  context.exitCode = refused === 0 && completed ? ExitCode.Ok : ExitCode.Failed;
}

async function itemsText({ sources }: CliContext, file: string): Promise<string> {
  if (file === '-') return sources.readStdin();
  try {
    return await sources.readFile(file);
  } catch (error) {
    throw new UsageError(`cannot read the batch file ${file}: ${(error as Error).message}`);
  }
}

function printAccepted({ terminal }: CliContext, accepted: BatchAccepted): void {
  terminal.out(`batch ${accepted.batch_id}`);
  for (const [index, slot] of accepted.executions.entries()) {
    if ('execution_id' in slot) terminal.out(`${index + 1} ${slot.execution_id}`);
    else terminal.out(`${index + 1} ${terminal.style('red', slot.error.code)} ${slot.error.message}`);
  }
}

/** Waits for the batch's end, saying its counts on stderr as they change; Ctrl-C stops watching. */
async function followBatch(
  { terminal }: CliContext,
  client: SkillrunClient,
  batchId: string,
  timeoutMs: number | undefined,
): Promise<BatchView> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  let said = '';
  try {
    return await client.waitBatch(batchId, {
      signal: controller.signal,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      onUpdate: (view) => {
        const counts = Object.entries(view.counts)
          .filter(([, count]) => count > 0)
          .map(([status, count]) => `${count} ${status}`)
          .join(', ');
        if (counts !== said) terminal.err(counts || 'no executions');
        said = counts;
      },
    });
  } catch (error) {
    const follow = `Follow it with \`skillrun executions --batch ${batchId}\``;
    if (controller.signal.aborted)
      throw new CliError('stopped watching; the batch goes on', INTERRUPTED, follow);
    if ((error as { code?: unknown }).code === 'WAIT_TIMEOUT') {
      throw new CliError('the batch had not ended within --timeout', ExitCode.Failed, follow);
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}
