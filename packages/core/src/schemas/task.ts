import { type Static, Type } from '@sinclair/typebox';
import { JsonSchemaObject, StringEnum } from './json-schema';

/** Ours: a task of a `task` skill as the people and agents who do it see it. */
export const TaskView = Type.Object({
  execution_id: Type.String(),
  skill_id: Type.String(),
  skill_version: Type.String(),
  description: Type.String(),
  instructions: Type.Optional(Type.String({ description: "The skill's task.instructions (Markdown)." })),
  inputs: Type.Record(Type.String(), Type.Unknown()),
  output_schema: { ...JsonSchemaObject, description: 'What the output handed in must match.' },
  state: StringEnum(['open', 'claimed']),
  claimed_by: Type.Optional(Type.String()),
  claimed_at: Type.Optional(Type.String({ format: 'date-time' })),
  deadline: Type.String({ format: 'date-time', description: 'When it times out unless handed in.' }),
  created_at: Type.String({ format: 'date-time' }),
  caller: Type.Object({ id: Type.String(), type: Type.String() }, { description: 'Who asked for it.' }),
  urls: Type.Object({
    claim: Type.String(),
    complete: Type.String(),
    decline: Type.String(),
    link: Type.String(),
  }),
});
export type TaskView = Static<typeof TaskView>;

/** GET /tasks: the open tasks the caller may take, oldest first. */
export const TaskListQuery = Type.Object(
  {
    skill_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);
export type TaskListQuery = Static<typeof TaskListQuery>;

export const TaskListPage = Type.Object({
  tasks: Type.Array(TaskView),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type TaskListPage = Static<typeof TaskListPage>;

/** POST complete: the task's output, validated against the skill's output schema. */
export const TaskCompletion = Type.Object(
  { output: Type.Unknown() },
  { additionalProperties: false, required: ['output'] },
);

export const TaskDecline = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

/** POST link: a one-time link that hands the task in without credentials. */
export const TaskLink = Type.Object({
  url: Type.String({ description: 'GET shows the task; POST {url}/complete hands it in, once.' }),
  expires_at: Type.String({ format: 'date-time' }),
});
export type TaskLink = Static<typeof TaskLink>;
