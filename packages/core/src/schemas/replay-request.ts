import { type Static, Type } from '@sinclair/typebox';
import { ExecutionListQuery, type MetadataFilter, MetadataFilterProperties } from './execution-list';
import { VersionRange } from './semver';

/**
 * A composite's step to run again from (DBOS' fork, Temporal's reset): the steps before it are
 * reused (their recorded outputs, their executions linked), it and those after it run anew.
 */
export const FromStep = Type.String({
  minLength: 1,
  maxLength: 200,
  description:
    'Ours, for a composite: rerun from this step, reusing the recorded outputs of the steps before it (default: the failed step, when the execution failed and `inputs` are not edited). Name the first step to rerun the whole pipeline.',
});

/** The body of POST replay (ours): what to change from the execution replayed, if anything. */
export const ReplayRequest = Type.Object(
  {
    inputs: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "Edited inputs, validated like any invocation's (default: the original's).",
        },
      ),
    ),
    version: Type.Optional({
      ...VersionRange,
      description:
        "Which version to run: a semver range (default: the original's requested range, or the latest).",
    }),
    from_step: Type.Optional(FromStep),
  },
  { additionalProperties: false },
);
export type ReplayRequest = Static<typeof ReplayRequest>;

/** The body of POST /executions/replay: the query of GET /executions, and where each composite reruns from. */
export const BulkReplayRequest = Type.Object(
  { ...ExecutionListQuery.properties, from_step: Type.Optional(FromStep) },
  { additionalProperties: false, patternProperties: MetadataFilterProperties },
);
export type BulkReplayRequest = Static<typeof BulkReplayRequest> & MetadataFilter;

/** What POST /executions/replay answers: each execution replayed, or why it could not be. */
export const BulkReplayResult = Type.Object({
  replays: Type.Array(
    Type.Object({
      replay_of: Type.String(),
      execution_id: Type.Optional(Type.String()),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
  ),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the filter goes on: send it again with this cursor to replay the next page.',
  }),
});
export type BulkReplayResult = Static<typeof BulkReplayResult>;
