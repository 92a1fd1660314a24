import { type Static, Type } from '@sinclair/typebox';

/**
 * One chunk of the output an execution's skill streams while it runs (ctx.emit, an llm skill's
 * text deltas): the data of a `chunk` event of GET events.
 */
export const StreamedChunk = Type.Object(
  {
    seq: Type.Integer({
      minimum: 1,
      description:
        "The chunk's place in the execution's stream, from 1, in the order emitted (an execution retried after a failure streams on after its earlier attempts' chunks).",
    }),
    chunk: Type.Unknown({
      description: 'What the skill emitted: any JSON value (an llm skill: a piece of text).',
    }),
  },
  { additionalProperties: false },
);
export type StreamedChunk = Static<typeof StreamedChunk>;
