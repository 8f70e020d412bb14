// A typed client of the mediagw API, its types and enum values generated from the served OpenAPI
// document (src/api.ts, by openapi-typescript --enum-values). It works from any origin: the API's CORS headers expose
// every header it reads.
import type { components, operations } from "./api.js";

type Schemas = components["schemas"];
export type ItemsPage = Schemas["ItemsPage"];
export type ItemSummary = Schemas["ItemSummary"];
export type ItemDocument = Schemas["ItemDocument"];
export type CategoryList = Schemas["CategoryList"];
export type AuthorList = Schemas["AuthorList"];
export type Suggestions = Schemas["Suggestions"];
export type RelatedItems = Schemas["RelatedItems"];
export type Problem = Schemas["Problem"];
export type QueryParams = NonNullable<operations["getResource"]["parameters"]["query"]>;
export type ItemsParams = Omit<QueryParams, "resource" | "id">;
export type Sort = components["parameters"]["sort"];
/** The orders of the author and category lists; the other values of sort order items. */
export const listSorts = ["name", "count"] as const satisfies readonly Sort[];
export type ListSort = (typeof listSorts)[number];
/** The parameters of the author and category lists: a name search, an order, pages, and the items
 * filters whose items the counts are of (the categories take no category). */
export type ListParams = Pick<QueryParams, "q" | "type" | "category" | "language" | "license" | "reuse" | "format" | "duration" | "has" | "from" | "to" | "page" | "per_page"> & {
  sort?: ListSort;
};
export { componentsParametersSortValues as sorts, itemTypeValues as itemTypes } from "./api.js";

/** Where a visitor stands against the rate limit, from the RateLimit headers of a response. */
export interface Standing {
  limit: number;
  remaining: number;
  /** Seconds until a request is allowed again (0 while requests remain). */
  retryIn: number;
}

/** A successful answer with the headers a page uses. */
export interface Reply<T> {
  body: T;
  /** Null when the headers say nothing, or when the answer came from the browser's cache, whose
   * headers tell where the visitor stood back then. */
  standing: Standing | null;
  etag: string | null;
  link: string | null;
}

/** A problem answer (RFC 9457); retryAfter is set on 429 and 503. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    readonly standing: Standing | null,
    readonly retryAfter: number | null,
  ) {
    super(problem?.detail ?? `HTTP ${status}`);
  }
}

/** standing reads the IETF RateLimit fields: RateLimit: "default";r=118;t=0 and RateLimit-Policy: …;q=120. */
export function standing(headers: Headers): Standing | null {
  const rl = headers.get("RateLimit");
  if (!rl) return null;
  const field = (s: string | null, key: string) => {
    const m = s?.match(new RegExp(`;${key}=(\\d+)`));
    return m ? Number(m[1]) : NaN;
  };
  const remaining = field(rl, "r");
  const retryIn = field(rl, "t");
  const limit = field(headers.get("RateLimit-Policy"), "q");
  if (Number.isNaN(remaining) || Number.isNaN(retryIn)) return null;
  return { limit, remaining, retryIn };
}

export class Client {
  /** The X-Request-Id of every answer so far: one seen again was reused from the browser's cache. */
  private readonly seen = new Set<string>();

  /** base is the API's base URL, ending in "/". */
  constructor(readonly base: string, private readonly fetchFn: typeof fetch = fetch.bind(globalThis)) {}

  private async get<T>(params: QueryParams, signal?: AbortSignal): Promise<Reply<T>> {
    const url = new URL(this.base);
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
    }
    const res = await this.fetchFn(url, { signal, headers: { Accept: "application/json" } });
    const id = res.headers.get("X-Request-Id");
    const cached = id !== null && this.seen.has(id);
    if (id !== null) this.seen.add(id);
    const st = cached ? null : standing(res.headers);
    if (!res.ok) {
      let problem: Problem | null = null;
      try {
        problem = (await res.json()) as Problem;
      } catch {
        // A body that is not a problem (a proxy's page) leaves only the status.
      }
      const retry = res.headers.get("Retry-After");
      throw new ApiError(res.status, problem, st, retry === null ? null : Number(retry));
    }
    return { body: (await res.json()) as T, standing: st, etag: res.headers.get("ETag"), link: res.headers.get("Link") };
  }

  items(params: ItemsParams, signal?: AbortSignal) {
    return this.get<ItemsPage>({ ...params, resource: "items" }, signal);
  }
  item(id: string, signal?: AbortSignal) {
    return this.get<ItemDocument>({ resource: "item", id }, signal);
  }
  suggest(q: string, perPage?: number, signal?: AbortSignal) {
    return this.get<Suggestions>({ resource: "suggest", q, per_page: perPage }, signal);
  }
  related(id: string, perPage?: number, signal?: AbortSignal) {
    return this.get<RelatedItems>({ resource: "related", id, per_page: perPage }, signal);
  }
  categories(params: Omit<ListParams, "category"> = {}, signal?: AbortSignal) {
    return this.get<CategoryList>({ ...params, resource: "categories" }, signal);
  }
  authors(params: ListParams = {}, signal?: AbortSignal) {
    return this.get<AuthorList>({ ...params, resource: "authors" }, signal);
  }
}
