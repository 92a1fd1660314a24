import { type Static, Type } from '@sinclair/typebox';
import { VersionRange } from './semver';

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
  },
  { additionalProperties: false },
);
export type ReplayRequest = Static<typeof ReplayRequest>;

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
