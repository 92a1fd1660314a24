import { type Static, Type } from '@sinclair/typebox';

/** knowledge.json beside a knowledge skill's skill.json: where its documents are and how to search them. */
export const KnowledgeSettings = Type.Object(
  {
    /** The folder of documents, relative to the skill's folder. */
    documents: Type.String({ default: 'documents', minLength: 1 }),
    /** The fields searched; every top-level text field of the documents when absent. */
    search_fields: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    /** Weight of a match in a field (1 by default), e.g. {"title": 2}. */
    boost: Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0 }), { default: {} }),
    /** How far a term may be misspelt, as a fraction of its length (0: exact terms only). */
    fuzzy: Type.Number({ default: 0.2, minimum: 0, maximum: 1 }),
    /** Whether a query term matches the words it starts (`auth` finds `authentication`). */
    prefix: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);
export type KnowledgeSettings = Static<typeof KnowledgeSettings>;
