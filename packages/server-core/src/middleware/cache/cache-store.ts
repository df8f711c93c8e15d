/** The spec's `CacheEntry`: a stored answer. */
export interface CacheEntry {
  /** The response body as text (bodies are cached as UTF-8 JSON/text, never streams). */
  data: string;
  status: number;
  createdAt: number;
  ttlMs: number;
  headers?: Record<string, string>;
}

/** Where cached responses live. */
export interface CacheStore {
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry): Promise<void>;
  delete(key: string): Promise<void>;
  clear?(): Promise<void>;
}
