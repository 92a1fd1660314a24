import MiniSearch from 'minisearch';
import type { KnowledgeDocument } from './knowledge-documents';
import type { KnowledgeAnswer, KnowledgeQuery } from './knowledge-query';
import type { KnowledgeSettings } from './knowledge-settings';

type Scalar = string | number | boolean;

/**
 * The full-text index of one version of a knowledge skill, built once when the worker loads it
 * (MiniSearch: BM25 ranking, fuzzy and prefix matching), and the filters and pages of a query.
 */
export class KnowledgeIndex {
  private readonly search: MiniSearch<{ n: number }>;
  /** The fields searched. */
  readonly fields: string[];

  constructor(
    private readonly documents: KnowledgeDocument[],
    settings: KnowledgeSettings,
  ) {
    this.fields = settings.search_fields ?? textFields(documents);
    this.search = new MiniSearch<{ n: number }>({
      idField: 'n',
      fields: this.fields,
      // Documents are looked up by position; a list of words (tags) is searched as its words.
      extractField: (entry, field) =>
        field === 'n' ? String(entry.n) : searchable(this.documents[entry.n]?.fields[field]),
      searchOptions: { boost: settings.boost, fuzzy: settings.fuzzy, prefix: settings.prefix },
    });
    this.search.addAll(documents.map((_, n) => ({ n })));
  }

  get size(): number {
    return this.documents.length;
  }

  query({ query, filters, limit, offset }: KnowledgeQuery): KnowledgeAnswer {
    const keep = (document: KnowledgeDocument | undefined) =>
      document !== undefined && matchesFilters(document, filters);
    const found: { document: KnowledgeDocument; score: number | null }[] =
      query.trim() === ''
        ? this.documents.filter(keep).map((document) => ({ document, score: null }))
        : this.search
            .search(query, { filter: (result) => keep(this.documents[result.id as number]) })
            .map((result) => ({
              document: this.documents[result.id as number] as KnowledgeDocument,
              score: result.score,
            }));
    return {
      query,
      total: found.length,
      offset,
      limit,
      results: found.slice(offset, offset + limit).map(({ document, score }) => ({
        id: document.id,
        score,
        source: document.source,
        document: document.fields,
      })),
    };
  }
}

/** Every top-level field that holds text (or a list of texts) in some document. */
function textFields(documents: KnowledgeDocument[]): string[] {
  const fields = new Set<string>();
  for (const { fields: each } of documents) {
    for (const [field, value] of Object.entries(each)) {
      if (field !== 'id' && searchable(value) !== undefined) fields.add(field);
    }
  }
  return [...fields];
}

function searchable(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(' ');
  return undefined;
}

function matchesFilters(document: KnowledgeDocument, filters: KnowledgeQuery['filters']): boolean {
  if (!filters) return true;
  return Object.entries(filters).every(([field, wanted]) => {
    const value = Object.hasOwn(document.fields, field) ? document.fields[field] : undefined;
    const accepted: Scalar[] = Array.isArray(wanted) ? wanted : [wanted];
    const held = Array.isArray(value) ? value : [value];
    return held.some((item) => accepted.includes(item as Scalar));
  });
}
