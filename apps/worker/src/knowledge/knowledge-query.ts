import { type Static, Type } from '@sinclair/typebox';

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/**
 * What every knowledge skill answers: a full-text query, exact filters on fields, and a page. A
 * knowledge skill's skill.json `input` must accept it (the worker checks at load).
 */
export const KnowledgeQuery = Type.Object({
  /** Words to search for; empty lists the documents (filtered) in the order of their files. */
  query: Type.String({ default: '', maxLength: 1000 }),
  /** Field → value (or any of several values); a document whose field is a list matches any item. */
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Union([Scalar, Type.Array(Scalar, { maxItems: 100 })]), {
      maxProperties: 20,
    }),
  ),
  limit: Type.Integer({ default: 10, minimum: 1, maximum: 100 }),
  offset: Type.Integer({ default: 0, minimum: 0, maximum: 10_000 }),
});
export type KnowledgeQuery = Static<typeof KnowledgeQuery>;

/** Where a document came from: its file, and its place in a JSON array or line of a JSONL file. */
export const DocumentSource = Type.Object({
  file: Type.String(),
  index: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type DocumentSource = Static<typeof DocumentSource>;

/** A knowledge skill's answer: one page of the documents found, best first, each with its source. */
export const KnowledgeAnswer = Type.Object({
  query: Type.String(),
  total: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 1 }),
  results: Type.Array(
    Type.Object({
      id: Type.String(),
      /** The search's relevance score; null when the query was empty. */
      score: Type.Union([Type.Number(), Type.Null()]),
      source: DocumentSource,
      document: Type.Record(Type.String(), Type.Unknown()),
    }),
  ),
});
export type KnowledgeAnswer = Static<typeof KnowledgeAnswer>;
