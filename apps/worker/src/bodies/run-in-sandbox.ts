import type { SkillTask } from '../sandbox/messages';
import type { SandboxOutcome, SkillSandbox } from '../sandbox/skill-sandbox';
import type { CodeModule } from '../skills/loaded-skill';
import type { Attempt } from './skill-body';

/**
 * `execute(input, ctx)` of a skill's module, run once in a sandbox thread under the attempt's
 * deadline; its log lines, progress and chunks go to the attempt's. `composite`: what a composite written as
 * code may invoke, and the answers of the steps it invoked so far.
 */
export function runInSandbox(
  sandbox: SkillSandbox,
  attempt: Attempt,
  code: CodeModule,
  composite?: SkillTask['composite'],
): Promise<SandboxOutcome> {
  // Not `logger`: the attempt makes its logger when first asked, and most skills log nothing.
  const { payload, skill, input, number, deadline, cancel, progress } = attempt;
  return sandbox.run({
    module: code.module,
    isolation: code.isolation,
    ...(code.memoryMb === undefined ? {} : { memoryMb: code.memoryMb }),
    input,
    meta: {
      executionId: payload.execution_id,
      skillId: skill.definition.name,
      skillVersion: skill.definition.version,
      traceId: payload.trace_id,
      caller: payload.caller,
      attempt: number,
    },
    ...(payload.metadata === undefined ? {} : { metadata: payload.metadata }),
    ...(composite ? { composite } : {}),
    timeoutMs: Math.max(0, deadline - Date.now()),
    cancel,
    onEvent: (event) => {
      if (event.type === 'log')
        attempt.logger[event.level]({ skill_log: true, ...event.fields }, event.message);
      else if (event.type === 'chunk') attempt.chunks.add(event.json);
      else if (event.type === 'metadata') progress.reportMetadata(event.json);
      else progress.report(event.value);
    },
  });
}
