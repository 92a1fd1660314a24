import { type Static, Type } from '@sinclair/typebox';
import {
  ExecutionFilterFields,
  HistoryCursor,
  type MetadataFilter,
  MetadataFilterProperties,
} from './execution-list';

/**
 * The body of POST /executions/cancel (ours): the filters of GET /executions, how many executions
 * one call cancels at most, and where the previous call stopped.
 */
export const BulkCancelRequest = Type.Object(
  {
    ...ExecutionFilterFields,
    limit: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'The most executions this call cancels; send next_cursor for the rest.',
    }),
    cursor: HistoryCursor,
  },
  { additionalProperties: false, patternProperties: MetadataFilterProperties },
);
export type BulkCancelRequest = Static<typeof BulkCancelRequest> & MetadataFilter;

/** What POST /executions/cancel answers: how many it canceled, and where the filter goes on. */
export const BulkCancelResult = Type.Object({
  canceled: Type.Integer({
    minimum: 0,
    description: 'Executions this call ended as canceled (composite steps canceled with them not counted).',
  }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description:
      'Send the filter again with this cursor to cancel what is left of it; null once the scan reached the oldest execution kept.',
  }),
});
export type BulkCancelResult = Static<typeof BulkCancelResult>;
