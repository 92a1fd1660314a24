import { type Static, Type } from '@sinclair/typebox';

/**
 * How a plain-text A2A message was routed to the skill its task runs (the task's
 * `metadata.routing`): to A2A_DEFAULT_SKILL, the text as its `input`; or by the model the gateway
 * asked, which tool it called with which arguments.
 */
export const TaskRouting = Type.Union([
  Type.Object({
    by: Type.Literal('default_skill'),
    skill_id: Type.String(),
    input: Type.String({ description: 'The input the text was given as.' }),
  }),
  Type.Object({
    by: Type.Literal('llm'),
    skill_id: Type.String(),
    model: Type.String(),
    tool: Type.String({ description: "The tool the model called (the skill's OpenAI tool name)." }),
    arguments: Type.Record(Type.String(), Type.Unknown(), { description: 'The inputs the model filled.' }),
  }),
]);
export type TaskRouting = Static<typeof TaskRouting>;

/** What A2A keeps of a task beside its execution: the context the client named, and its routing. */
export interface TaskNote {
  contextId?: string;
  routing?: TaskRouting;
}
