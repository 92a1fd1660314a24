import type { Part, StreamResponse, Task } from '@a2a-js/sdk';
import { dataPart } from '@skillrun/core/a2a';

/** The artifact a task's streamed chunks are appended to: one per task, apart from `output`. */
export const OUTPUT_STREAM_ARTIFACT = 'output-stream';

/** A chunk as a part: a string as text, anything else as data. */
function chunkPart(chunk: unknown): Part {
  if (typeof chunk !== 'string') return dataPart(chunk);
  return {
    content: { $case: 'text', value: chunk },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

function streamUpdate(task: Task, parts: Part[], append: boolean, lastChunk: boolean): StreamResponse {
  return {
    payload: {
      $case: 'artifactUpdate',
      value: {
        taskId: task.id,
        contextId: task.contextId,
        artifact: {
          artifactId: OUTPUT_STREAM_ARTIFACT,
          name: OUTPUT_STREAM_ARTIFACT,
          description: 'The output the skill streams as it runs, chunk by chunk',
          parts,
          metadata: undefined,
          extensions: [],
        },
        append,
        lastChunk,
        metadata: undefined,
      },
    },
  };
}

/**
 * One chunk the skill streamed (ctx.emit), appended to the task's streamed artifact; the first a
 * stream sends starts it afresh (`append: false`): every stream, a resubscription too, sends the
 * chunks from the first, so a client that had part of them is not left with them twice.
 */
export function chunkUpdate(task: Task, chunk: unknown, first: boolean): StreamResponse {
  return streamUpdate(task, [chunkPart(chunk)], !first, false);
}

/**
 * The streamed artifact's end, once the execution ends: whether a chunk is the last is known only
 * then, and holding each chunk back until the next one would delay every chunk, so the end appends
 * nothing and says `lastChunk`.
 */
export function streamEndUpdate(task: Task): StreamResponse {
  return streamUpdate(task, [], true, true);
}
