import type { SkillKind } from '@skillrun/core';
import { TaskStore } from '@skillrun/core/data';
import type { CompositeDeps } from '../composite/composite-run';
import { buildLlmBody } from '../llm/build-llm';
import { buildRemoteBody } from '../remote/build-remote';
import type { SkillSandbox } from '../sandbox/skill-sandbox';
import type { WorkerShared } from '../worker-shared';
import { CodeBody } from './code-body';
import { CompositeBody } from './composite-body';
import { KnowledgeBody } from './knowledge-body';
import type { LlmBody } from './llm-body';
import type { SkillBody } from './skill-body';
import { TaskBody } from './task-body';

/** The body that runs each kind of skill; the llm one is asked, at start, which skills lack a provider. */
export type Bodies = Record<SkillKind, SkillBody> & { llm: LlmBody };

/** A body per kind of skill: code in the sandbox, llm, composite (with its steps), knowledge, task, remote. */
export function buildBodies(
  shared: WorkerShared,
  { sandbox, composite }: { sandbox: SkillSandbox; composite: CompositeDeps },
): Bodies {
  return {
    code: new CodeBody(sandbox),
    llm: buildLlmBody(shared),
    composite: new CompositeBody({ ...composite, sandbox }),
    knowledge: new KnowledgeBody(),
    task: new TaskBody(new TaskStore(shared.redis, shared.keys)),
    remote: buildRemoteBody(shared),
  };
}
