import type { ApprovalView, SkillrunExecution } from '@skillrun/client';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { styledStatus } from '../format/status-style';
import { renderTable } from '../table';
import { settingsOf } from './command-settings';
import { positiveInteger } from './option-parsers';
import { withServiceOptions } from './service-options';

interface ListFlags {
  skill?: string;
  limit?: number;
  cursor?: string;
}

interface PolicyFlags {
  when?: string;
  approvers?: string;
  timeout?: number;
  clear?: boolean;
}

/**
 * `skillrun approvals`: the pending approvals you may decide, approving or rejecting one (once),
 * and an operator's approval policy for a skill.
 */
export function registerApprovalsCommand(program: Command, context: CliContext): void {
  const approvals = program
    .command('approvals')
    .alias('approval')
    .summary("executions awaiting an approval: list, show, approve, reject; a skill's policy")
    .description(
      "Executions whose skill's approval policy holds them (status awaiting_approval) until an approver decides: approved, they run; rejected or timed out, they fail (APPROVAL_REJECTED, APPROVAL_TIMEOUT) and nothing runs. Each is decided once.",
    );

  withServiceOptions(
    approvals
      .command('list', { isDefault: true })
      .summary('list the pending approvals you may decide, oldest first')
      .option('--skill <id>', 'only this skill')
      .option('--limit <n>', 'at most this many (1-100, default 20)', positiveInteger(100))
      .option('--cursor <cursor>', "the page after the previous page's next_cursor"),
  ).action(async (flags: ListFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const { terminal } = context;
    const page = await context.client(settings).approvals.list({
      ...(flags.skill === undefined ? {} : { skillId: flags.skill }),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    });
    if (settings.json) {
      terminal.json(page);
      return;
    }
    if (page.approvals.length === 0) {
      terminal.err('No pending approvals.');
      return;
    }
    const lines = renderTable<ApprovalView>(
      [
        { header: 'EXECUTION', value: (approval) => approval.execution_id },
        { header: 'SKILL', value: (approval) => approval.skill_id },
        { header: 'CALLER', value: (approval) => approval.caller.id },
        { header: 'INPUTS', value: (approval) => JSON.stringify(approval.inputs), shrink: true },
        { header: 'DEADLINE', value: (approval) => approval.approval.deadline },
      ],
      page.approvals,
      terminal.columns,
      (text) => terminal.style('bold', text),
    );
    for (const line of lines) terminal.out(line);
    if (page.next_cursor) terminal.err(`More: add --cursor ${page.next_cursor}`);
  });

  withServiceOptions(
    approvals.command('show').summary('one pending approval, with its inputs').argument('<execution>'),
  ).action(async (executionId: string, _flags: unknown, command: Command) => {
    const settings = settingsOf(command, context);
    const view = await context.client(settings).approvals.get(executionId);
    if (settings.json) context.terminal.json(view);
    else {
      context.terminal.out(
        `${view.skill_id}@${view.skill_version} for ${view.caller.id}: ${view.description}`,
      );
      context.terminal.out(`asked by: ${view.approval.when ?? 'always'}, until ${view.approval.deadline}`);
      context.terminal.out(JSON.stringify(view.inputs, null, 2));
    }
  });

  for (const verdict of ['approve', 'reject'] as const) {
    withServiceOptions(
      approvals
        .command(verdict)
        .summary(verdict === 'approve' ? 'approve: the execution runs' : 'reject: the execution fails, unrun')
        .argument('<execution>', 'the execution id')
        .option('--reason <text>', 'why (kept on the execution)'),
    ).action(async (executionId: string, flags: { reason?: string }, command: Command) => {
      const settings = settingsOf(command, context);
      const execution = await context.client(settings).approvals.decide(executionId, verdict, flags.reason);
      if (settings.json) context.terminal.json(execution);
      else context.terminal.out(decided(execution, context));
    });
  }

  withServiceOptions(
    approvals
      .command('policy')
      .summary("show or set an operator's approval policy for a skill (admin)")
      .description(
        "Without options, the skill's policy as an operator set it. --when sets it for every version, without a new one: 'always', or a rule on the inputs such as 'amount > 1000'; --clear removes it (each version's skill.json approval applies).",
      )
      .argument('<skill>', 'the skill id')
      .option('--when <rule>', "'always', or field op value: > >= < <= == != (e.g. 'amount > 1000')")
      .option('--approvers <ids>', 'comma-separated caller ids that may decide (admins always may)')
      .option('--timeout <ms>', 'how long an execution waits for a decision', positiveInteger(604_800_000))
      .option('--clear', 'remove the policy'),
  ).action(async (skillId: string, flags: PolicyFlags, command: Command) => {
    const settings = settingsOf(command, context);
    const calls = context.client(settings).approvals;
    const state =
      flags.clear === true
        ? await calls.setPolicy(skillId, null)
        : flags.when === undefined
          ? await calls.policy(skillId)
          : await calls.setPolicy(skillId, {
              when: flags.when,
              ...(flags.approvers === undefined ? {} : { approvers: flags.approvers.split(',') }),
              ...(flags.timeout === undefined ? {} : { timeout_ms: flags.timeout }),
            });
    if (settings.json) context.terminal.json(state);
    else if (!state.approval) context.terminal.out(`${skillId}: no operator's approval policy`);
    else
      context.terminal.out(
        `${skillId}: approval when ${state.approval.when}, by ${state.approval.approvers?.join(', ') ?? 'admins'} (set by ${state.set_by} at ${state.set_at})`,
      );
  });
}

function decided(execution: SkillrunExecution, context: CliContext): string {
  const { approval } = execution;
  return `${execution.execution_id} ${approval?.state ?? ''} by ${approval?.decided_by ?? '?'}: ${styledStatus(context.terminal, execution.status)}`;
}
