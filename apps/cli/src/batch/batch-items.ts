import type { BatchItem } from '@skillrun/client';
import { UsageError } from '../cli-error';

const ITEMS_HINT =
  'Write one item per line, as JSON: {"skill_id":"text_stats","inputs":{"text":"hi"}} (also "version", "context", "idempotency_key")';

/**
 * The items of `invoke --batch`: one JSON object per line (JSON Lines), blank lines skipped; a line
 * without `skill_id` takes `skill`, the command's own when it names one. The service checks each
 * item; only what is not an item at all is refused here, naming its line.
 */
export function batchItems(text: string, from: string, skill: string | undefined): BatchItem[] {
  const items: BatchItem[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (error) {
      throw new UsageError(
        `line ${index + 1} of ${from} is not JSON: ${(error as Error).message}`,
        ITEMS_HINT,
      );
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new UsageError(`line ${index + 1} of ${from} is not a JSON object`, ITEMS_HINT);
    }
    items.push(
      (skill === undefined || 'skill_id' in item ? item : { skill_id: skill, ...item }) as BatchItem,
    );
  }
  if (items.length === 0) throw new UsageError(`${from} has no items`, ITEMS_HINT);
  return items;
}
