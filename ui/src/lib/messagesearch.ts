// The full-text search over every message the index covers (the listing's own name filter is
// listfilter.ts).
import * as api from './api';
import type { SearchResults } from './types';

/** Sessions whose messages match `query`, best first: at most `limit` sessions. */
export const searchMessages = (query: string, limit = 50): Promise<SearchResults> => api.search(query, limit);
