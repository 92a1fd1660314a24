import { type Static, Type } from '@sinclair/typebox';
import { MAX_JSON_BYTES_KEYWORD } from './json-schema';

/** How many tags one execution may carry (Trigger.dev's run tags: 10). */
export const MAX_TAGS = 10;

/** The most bytes an execution's metadata may take as JSON: it is stored on every record. */
export const MAX_METADATA_BYTES = 4096;

/**
 * One tag: 1 to 64 characters that need no escaping in a URL's query nor a shell (letters,
 * digits and `_ . : / -`), so that `?tag=customer:42` and `--tag env/prod` mean what they say.
 */
export const ExecutionTag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:/-]+$' });

/** Ours: labels to find executions by (GET /executions?tag=); a composite's steps inherit them. */
export const ExecutionTags = Type.Array(ExecutionTag, {
  maxItems: MAX_TAGS,
  uniqueItems: true,
  description: `Ours: up to ${MAX_TAGS} tags, each 1 to 64 of A-Z a-z 0-9 _ . : / - (no repeats), to list executions by (GET /executions?tag=); a composite's steps inherit them.`,
});
export type ExecutionTags = Static<typeof ExecutionTags>;

/** Ours: a JSON object kept with the execution, as sent; a composite's steps inherit it. */
export const ExecutionMetadata = Type.Object(
  {},
  {
    additionalProperties: true,
    [MAX_JSON_BYTES_KEYWORD]: MAX_METADATA_BYTES,
    description: `Ours: a JSON object kept with the execution (at most ${MAX_METADATA_BYTES} bytes as JSON), to list executions by a top-level value (GET /executions?metadata.<key>=); a composite's steps inherit it.`,
  },
);
export type ExecutionMetadata = Static<typeof ExecutionMetadata>;
