import { checkPipeline, findCallCycle, SkillError, toInputSchema } from '@skillrun/core';
import type { RegistryVersion, SkillRegistry } from '@skillrun/core/data';
import semver from 'semver';
import type { LoadedSkill } from '../skills/loaded-skill';
import { SkillLoadError } from '../skills/skill-loader';

type JsonSchema = Record<string, unknown>;

interface Contract {
  input: JsonSchema;
  output: JsonSchema;
  calls: string[];
}

/**
 * What a composite calls must be sound before the worker hosts it: every skill it calls listed in
 * `calls` and existing (hosted here, hosted by another worker, or registered), no call cycles, and
 * the pipeline's templates reading fields and feeding types that the schemas allow.
 */
export async function checkComposites(skills: LoadedSkill[], registry: SkillRegistry): Promise<void> {
  const composites = skills.filter((skill) => skill.body.kind === 'composite');
  if (composites.length === 0) return;
  const contracts = await collectContracts(skills, registry);
  for (const skill of composites) {
    const where = skill.file;
    const missing = skill.definition.calls.find((name) => !contracts.has(name));
    if (missing) {
      throw new SkillLoadError(`${where}: field "calls" names "${missing}", which does not exist`);
    }
    try {
      checkPipeline(skill.definition, (name) => contracts.get(name));
    } catch (error) {
      throw new SkillLoadError(`${where}: ${error instanceof SkillError ? error.message : String(error)}`);
    }
  }
  const cycle = findCallCycle(new Map([...contracts].map(([name, contract]) => [name, contract.calls])));
  if (cycle) throw new SkillLoadError(`Skills call each other in a cycle: ${cycle.join(' -> ')}`);
}

/** The latest contract of every skill reachable through `calls`: here first, then the registry. */
async function collectContracts(
  skills: LoadedSkill[],
  registry: SkillRegistry,
): Promise<Map<string, Contract>> {
  const contracts = new Map<string, Contract>();
  for (const { definition } of [...skills].sort((a, b) =>
    semver.compare(a.definition.version, b.definition.version),
  )) {
    contracts.set(definition.name, {
      input: definition.input,
      output: definition.output,
      calls: definition.calls,
    });
  }
  const asked = new Set<string>();
  for (let wanted = unknownCallees(contracts); wanted.length > 0; ) {
    const found = await registry.versionsOf(wanted);
    for (const name of wanted) {
      asked.add(name);
      const contract = latestContract(found.get(name) ?? []);
      if (contract) contracts.set(name, contract);
    }
    wanted = unknownCallees(contracts).filter((name) => !asked.has(name));
  }
  return contracts;
}

function unknownCallees(contracts: Map<string, Contract>): string[] {
  const names = [...contracts.values()].flatMap((contract) => contract.calls);
  return [...new Set(names)].filter((name) => !contracts.has(name));
}

function latestContract(versions: RegistryVersion[]): Contract | undefined {
  const latest = [...versions].sort((a, b) => semver.rcompare(a.version, b.version))[0];
  if (!latest) return undefined;
  if (latest.source === 'hosted') {
    const { input, output, calls } = latest.definition;
    return { input, output, calls };
  }
  const { descriptor } = latest;
  return { input: toInputSchema(descriptor), output: descriptor.output.schema, calls: [] };
}
