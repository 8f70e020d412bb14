/** The orders of the author and category lists; the other values of sort order items. */
export const listSorts = ["name", "count"];
export { componentsParametersSortValues as sorts, itemTypeValues as itemTypes } from "./api.js";
/** A problem answer (RFC 9457); retryAfter is set on 429 and 503. */
export class ApiError extends Error {
    status;
    problem;
    standing;
    retryAfter;
    constructor(status, problem, standing, retryAfter) {
        super(problem?.detail ?? `HTTP ${status}`);
        this.status = status;
        this.problem = problem;
        this.standing = standing;
        this.retryAfter = retryAfter;
    }
}
/** standing reads the IETF RateLimit fields: RateLimit: "default";r=118;t=0 and RateLimit-Policy: …;q=120. */
export function standing(headers) {
    const rl = headers.get("RateLimit");
    if (!rl)
        return null;
    const field = (s, key) => {
        const m = s?.match(new RegExp(`;${key}=(\\d+)`));
        return m ? Number(m[1]) : NaN;
    };
    const remaining = field(rl, "r");
    const retryIn = field(rl, "t");
    const limit = field(headers.get("RateLimit-Policy"), "q");
    if (Number.isNaN(remaining) || Number.isNaN(retryIn))
        return null;
    return { limit, remaining, retryIn };
}
export class Client {
    base;
    fetchFn;
    /** The X-Request-Id of every answer so far: one seen again was reused from the browser's cache. */
    seen = new Set();
    /** base is the API's base URL, ending in "/". */
    constructor(base, fetchFn = fetch.bind(globalThis)) {
        this.base = base;
        this.fetchFn = fetchFn;
    }
    async get(params, signal) {
        const url = new URL(this.base);
        for (const [k, v] of Object.entries(params)) {
            if (v !== undefined && v !== null && v !== "")
                url.searchParams.set(k, String(v));
        }
        const res = await this.fetchFn(url, { signal, headers: { Accept: "application/json" } });
        const id = res.headers.get("X-Request-Id");
        const cached = id !== null && this.seen.has(id);
        if (id !== null)
            this.seen.add(id);
        const st = cached ? null : standing(res.headers);
        if (!res.ok) {
            let problem = null;
            try {
                problem = (await res.json());
            }
            catch {
                // A body that is not a problem (a proxy's page) leaves only the status.
            }
            const retry = res.headers.get("Retry-After");
            throw new ApiError(res.status, problem, st, retry === null ? null : Number(retry));
        }
        return { body: (await res.json()), standing: st, etag: res.headers.get("ETag"), link: res.headers.get("Link") };
    }
    items(params, signal) {
        return this.get({ ...params, resource: "items" }, signal);
    }
    item(id, signal) {
        return this.get({ resource: "item", id }, signal);
    }
    suggest(q, perPage, signal) {
        return this.get({ resource: "suggest", q, per_page: perPage }, signal);
    }
    related(id, perPage, signal) {
        return this.get({ resource: "related", id, per_page: perPage }, signal);
    }
    categories(params = {}, signal) {
        return this.get({ ...params, resource: "categories" }, signal);
    }
    authors(params = {}, signal) {
        return this.get({ ...params, resource: "authors" }, signal);
    }
}
