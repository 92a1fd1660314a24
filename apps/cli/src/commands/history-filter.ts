import type { ExecutionQuery } from '@skillrun/client';
import type { Command } from 'commander';
import { UsageError } from '../cli-error';
import { collect, pointInTime } from './option-parsers';

/** The flags of the execution history's filter. */
export interface HistoryFilterFlags {
  skill?: string;
  status?: string;
  since?: string;
  until?: string;
  of?: string;
  schedule?: string;
  batch?: string;
  tag?: string[];
  anyTag?: boolean;
  metadata?: string[];
}

/** The history's filter flags on a command: `executions` lists what they find, `cancel --all` cancels it. */
export function withHistoryFilter(command: Command): Command {
  return command
    .option('--skill <id>', 'only this skill')
    .option(
      '--status <status,...>',
      'only these statuses: accepted, running, completed, failed, timeout, canceled',
    )
    .option(
      '--since <time>',
      'created at or after: RFC 3339 (2026-11-25T10:00:00Z) or an age (30m, 2h, 7d)',
      (value) => pointInTime(value),
    )
    .option('--until <time>', 'created before: as --since', (value) => pointInTime(value))
    .option('--schedule <id>', "only this schedule's runs")
    .option('--batch <id>', "only this batch's items (invoke --batch)")
    .option('--tag <tag>', 'only executions with this tag (repeatable: with every one of them)', collect)
    .option('--any-tag', 'with --tag: executions with any of the tags, not all')
    .option(
      '--metadata <key=value>',
      'only executions whose metadata has this top-level value (repeatable; JSON for a non-string: count=3)',
      collect,
    )
    .option('--of <caller>', "admin: this caller's executions");
}

/** The filter the flags say, as GET /executions and POST /executions/cancel take it. */
export function historyFilterOf(flags: HistoryFilterFlags): ExecutionQuery {
  return {
    ...(flags.skill === undefined ? {} : { skill_id: flags.skill }),
    ...(flags.status === undefined ? {} : { status: flags.status }),
    ...(flags.since === undefined ? {} : { since: flags.since }),
    ...(flags.until === undefined ? {} : { until: flags.until }),
    ...(flags.schedule === undefined ? {} : { schedule_id: flags.schedule }),
    ...(flags.batch === undefined ? {} : { batch_id: flags.batch }),
    ...(flags.of === undefined ? {} : { caller_id: flags.of }),
    ...(flags.tag === undefined ? {} : { tag: flags.tag }),
    ...(flags.anyTag ? { tag_match: 'any' as const } : {}),
    ...(flags.metadata === undefined ? {} : { metadata: metadataFilterOf(flags.metadata) }),
  };
}

/** `--metadata order=A-7`: the key is what comes before the first `=`. */
function metadataFilterOf(pairs: string[]): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--metadata ${pair}: must be key=value`);
    filter[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return filter;
}
