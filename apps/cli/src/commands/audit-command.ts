import type { AuditOutcome, AuditRecord } from '@skillrun/client';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context';
import { renderTable } from '../table';
import { settingsOf } from './command-settings';
import { pointInTime, positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface AuditFlags {
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

const OUTCOMES: readonly AuditOutcome[] = ['succeeded', 'refused', 'failed', 'unknown'];

function outcome(value: string): AuditOutcome {
  if ((OUTCOMES as readonly string[]).includes(value)) return value as AuditOutcome;
  throw new InvalidArgumentError(`must be one of ${OUTCOMES.join(', ')}`);
}

/** `skillrun audit`: the audit log of administrative acts (admins only), newest first. */
export function registerAuditCommand(program: Command, context: CliContext): void {
  withServiceOptions(
    program
      .command('audit')
      .summary('the audit log: who did which administrative act, when, from where (admin)')
      .description(
        'The audit log, newest first: keys created or revoked, skills published, deprecated, paused or resumed, credentials set, bulk cancels, replays and schedule changes, refusals included. Needs an admin credential.',
      )
      .option('--actor <caller>', "only this caller's acts")
      .option('--action <action>', 'only this act: key.create, skill.pause, schedule.update, ...')
      .option('--outcome <outcome>', `only acts that ended so: ${OUTCOMES.join(', ')}`, outcome)
      .option('--since <time|age>', 'acts at or after this time, or this long ago (30m, 2h, 7d)', (value) =>
        pointInTime(value),
      )
      .option('--until <time|age>', 'acts at or before this time, or this long ago', (value) =>
        pointInTime(value),
      )
      .option('--limit <n>', 'at most this many (1-200, default 50)', positiveInteger(200))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor"),
  ).action(async (flags: AuditFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const { actor, action, outcome, since, until, limit, cursor } = flags;
    const query = { actor, action, outcome, since, until, limit, cursor };
    const page = await context
      .client(settings)
      .audit(Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)));
    if (settings.json) {
      terminal.json(page);
      return;
    }
    if (page.records.length === 0) {
      terminal.err('No audit records.');
      return;
    }
    const lines = renderTable<AuditRecord>(
      [
        { header: 'AT', value: (record) => record.at },
        { header: 'ACTOR', value: actorOf },
        { header: 'ACTION', value: (record) => record.action },
        { header: 'TARGET', value: (record) => Object.values(record.target).join(' '), shrink: true },
        { header: 'OUTCOME', value: outcomeOf },
        { header: 'ADDRESS', value: (record) => record.address },
      ],
      page.records,
      terminal.columns,
      (text) => terminal.style('bold', text),
    );
    for (const line of lines) terminal.out(line);
    if (page.next_cursor) terminal.err(`More: add --cursor ${page.next_cursor}`);
  });
}

function actorOf(record: AuditRecord): string {
  return (
    record.actor.caller_id ??
    `(${record.actor.credential === 'none' ? 'no credentials' : 'refused credentials'})`
  );
}

function outcomeOf(record: AuditRecord): string {
  const { outcome, status, error_code } = record;
  return [outcome, status, error_code].filter((part) => part !== undefined).join(' ');
}
