import type {
  CallOptions,
  ClientOptions,
  InvokeAndWaitOptions,
  InvokeOptions,
  WaitOptions,
} from './client-options.js';
import type { ExecutionHandle, ExecutionRef } from './execution-handle.js';
import type {
  Execution,
  ExecutionPage,
  ExecutionQuery,
  SkillDescriptor,
  SkillPage,
  SkillSearchQuery,
} from './protocol.js';
import type { SkillInput, SkillOutput } from './skill-types.js';
import { SkillrunError } from './skillrun-error.js';

/** One skill, typed by its id's entry in SkillTypes. */
export interface TypedSkill<Id extends string> {
  readonly id: Id;
  invoke(inputs: SkillInput<Id>, options?: InvokeOptions): Promise<ExecutionHandle>;
  invokeAndWait(inputs: SkillInput<Id>, options?: InvokeAndWaitOptions): Promise<SkillOutput<Id>>;
}

/**
 * A spec 001 consumer: reads a skill's descriptor, sends the credentials its `auth` names, invokes
 * `endpoint.url` and follows `status_url` / `result_url` (or skillrun's live status).
 */
export class SkillrunClient {
  constructor(readonly options: ClientOptions = {}) {}

  listSkills(query: SkillSearchQuery = {}, options: CallOptions = {}): Promise<SkillPage> {
    throw notYet(query, options);
  }

  searchSkills(q: string, options: CallOptions & Omit<SkillSearchQuery, 'q'> = {}): Promise<SkillPage> {
    const { signal, ...query } = options;
    return this.listSkills({ ...query, q }, signal ? { signal } : {});
  }

  describe(skill: string, options: CallOptions & { version?: string } = {}): Promise<SkillDescriptor> {
    throw notYet(skill, options);
  }

  invoke(
    skill: string | SkillDescriptor,
    inputs: object,
    options: InvokeOptions = {},
  ): Promise<ExecutionHandle> {
    throw notYet(skill, inputs, options);
  }

  status(execution: ExecutionRef, options: CallOptions = {}): Promise<Execution> {
    throw notYet(execution, options);
  }

  result(execution: ExecutionRef, options: CallOptions = {}): Promise<Execution> {
    throw notYet(execution, options);
  }

  wait(execution: ExecutionRef, options: WaitOptions = {}): Promise<Execution> {
    throw notYet(execution, options);
  }

  async invokeAndWait(
    skill: string | SkillDescriptor,
    inputs: object,
    options: InvokeAndWaitOptions = {},
  ): Promise<unknown> {
    throw notYet(skill, inputs, options);
  }

  cancel(execution: ExecutionRef, options: CallOptions = {}): Promise<Execution> {
    throw notYet(execution, options);
  }

  executions(query: ExecutionQuery = {}, options: CallOptions = {}): Promise<ExecutionPage> {
    throw notYet(query, options);
  }

  skill<Id extends string>(id: Id): TypedSkill<Id> {
    return {
      id,
      invoke: (inputs, options) => this.invoke(id, inputs as object, options),
      invokeAndWait: async (inputs, options) =>
        (await this.invokeAndWait(id, inputs as object, options)) as SkillOutput<Id>,
    };
  }
}

function notYet(..._args: unknown[]): SkillrunError {
  return new SkillrunError('NOT_SUPPORTED', 'Not implemented yet');
}
