export interface MemoryEntry {
  id: string;
  text: string;
  path: string;
  tags: string[];
  created_at: string;
}

export interface MemoryHit {
  snippet: string;
  score: number;
  path: string;
  id: string;
}

/**
 * Long-term memory scoped to the caller (spec 003 section 6: what memory_store and memory_search
 * work on). The worker hands in core's MemoryStore, over Redis; a skill sees only these two calls.
 */
export interface SkillMemory {
  store(text: string, options?: { path?: string; tags?: string[] }): Promise<MemoryEntry>;
  /** The entries that best match the query's terms, best first. */
  search(query: string, limit: number): Promise<MemoryHit[]>;
}
