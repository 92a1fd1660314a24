import { migrateInputs } from '../registry/migrate-inputs';
import { runTargetOf } from '../registry/run-target';
import type { ResolvedSkill } from '../registry/skill-resolver';
import { coercionOf } from '../registry/version-contract';
import type { SkillSchemas } from '../validation/skill-schemas';

/**
 * The inputs an execution of the version resolved is launched with: the caller's, migrated to that
 * version (ResolvedSkill's `migrations`) and valid against its input schema (coerced where its
 * contract allows), or the refusal naming each violation under `basePath`. One check for every
 * launch: POST invoke's (and a batch item's, a schedule's run) and a composite's step.
 */
export function launchInputs(
  schemas: SkillSchemas,
  { entry, migrations }: Pick<ResolvedSkill, 'entry' | 'migrations'>,
  inputs: Record<string, unknown>,
  basePath: string,
): Record<string, unknown> {
  return schemas.assertInputs(runTargetOf(entry).skill.input, migrateInputs(inputs, migrations), {
    coerce: coercionOf(entry),
    basePath,
  });
}
