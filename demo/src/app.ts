// The search page: everything it shows comes from the public API through the typed client, and
// everything it shows follows from its URL, so a view can be shared and the back button works.
import { ApiError, Client, itemTypes, sorts, type ItemSummary, type ItemsParams, type Reply, type Sort, type Standing } from "./client.js";
import { allowedAPIs, apiBase, matchedHTML } from "./guard.js";

// The API answers on the base path this page is served under ({base}demo/ -> {base}); ?api=
// points the page at another API, on its own origin or one the operator allows (guard.ts).
const pageURL = new URL(location.href);
const chosenAPI = apiBase(pageURL, pageURL.searchParams.has("api") ? await allowedAPIs(pageURL) : []);
const client = new Client(chosenAPI ?? new URL("../", pageURL).href);

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const form = $<HTMLFormElement>("#search");
const qInput = $<HTMLInputElement>("#q");
const list = $<HTMLUListElement>("#completions");
const view = $<HTMLDivElement>("#view");
const message = $<HTMLParagraphElement>("#message");
const title = document.title;

const FILTERS = ["q", "type", "category", "author", "language", "license", "reuse", "format", "duration", "has", "from", "to", "sort"] as const satisfies readonly (keyof ItemsParams)[];
const FACETS = "type,category,language,year,license,format,duration" satisfies ItemsParams["facets"];
// The facets whose filter takes a comma list: several of their values can be ticked at once.
const LISTS = new Set(["type", "category", "language", "license", "format", "duration"]);
// The uses a licence may allow, as the reuse filter names them, with their words.
const USES: Record<string, string> = { commercial: "commercial use", modification: "modification" };

/** The values of a comma list parameter. */
const valuesOf = (p: URLSearchParams, name: string) => (p.get(name) ?? "").split(",").filter(Boolean);

/** p with value ticked or unticked in the comma list name, on the first page. */
function toggled(p: URLSearchParams, name: string, value: string): URLSearchParams {
  const next = new URLSearchParams(p);
  next.delete("page");
  const vs = valuesOf(p, name);
  const list = vs.includes(value) ? vs.filter((v) => v !== value) : [...vs, value].sort();
  list.length ? next.set(name, list.join(",")) : next.delete(name);
  return next;
}
// The words of each order the API has (a new one fails the build until it has its words);
// relevance is the default, the form's empty choice.
const SORT_NAMES: Record<Exclude<Sort, "relevance">, string> = { newest: "newest", oldest: "oldest", downloads: "most downloaded", az: "title A–Z" };

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...kids: (Node | string)[]) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...kids);
  return e;
}

/** A link to this page with params, keeping an accepted ?api=. */
function pageLink(params: Record<string, string | number | undefined>): string {
  const u = new URL("./", location.href);
  const api = pageURL.searchParams.get("api");
  if (api && chosenAPI) u.searchParams.set("api", api);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") u.searchParams.set(k, String(v));
  return u.pathname + u.search;
}

function go(href: string) {
  history.pushState(null, "", href);
  void render();
}

// Links inside the page navigate without reloading; the skip link moves the keyboard focus to the
// results (or whatever the view shows), past the form and the facets.
document.addEventListener("click", (ev) => {
  const a = (ev.target as Element).closest("a");
  if (!a || a.origin !== location.origin || !a.pathname.endsWith("/demo/") || ev.ctrlKey || ev.metaKey) return;
  ev.preventDefault();
  if (a.classList.contains("skip")) return (document.querySelector<HTMLElement>("#results") ?? view).focus();
  go(a.pathname + a.search);
});
addEventListener("popstate", () => void render());

function showStanding(s: Standing | null) {
  if (!s) return;
  const left = `${s.remaining} of ${Number.isNaN(s.limit) ? "?" : s.limit} requests left`;
  $("#standing").textContent = s.remaining > 0 ? `Rate limit: ${left}.` : `Rate limit: ${left}; more in ${s.retryIn} s.`;
}

function showError(err: unknown) {
  if ((err as Error).name === "AbortError") return;
  message.hidden = false;
  message.className = "";
  if (err instanceof ApiError) {
    showStanding(err.standing);
    if (err.status === 429) {
      message.textContent = `Too many requests: this page may ask again in ${err.retryAfter ?? "a few"} seconds.`;
      message.dataset.status = "429";
      return;
    }
    message.dataset.status = String(err.status);
    const detail = err.problem?.errors?.map((e) => `${e.parameter}: ${e.message}`).join("; ") || err.message;
    message.textContent = `${err.problem?.title ?? "Error"}: ${detail}`;
    return;
  }
  message.dataset.status = "network";
  message.textContent = `The API could not be reached: ${(err as Error).message}`;
}

/** call waits for an answer and shows the standing or the error; null when it failed or when a newer
 * view superseded the one that asked (signal aborted), whose answer must not replace the newer one's. */
async function call<T>(p: Promise<Reply<T>>, signal?: AbortSignal): Promise<T | null> {
  try {
    const r = await p;
    showStanding(r.standing);
    return signal?.aborted ? null : r.body;
  } catch (err) {
    if (!signal?.aborted) showError(err);
    return null;
  }
}

function result(it: ItemSummary): HTMLLIElement {
  const li = el("li");
  li.dataset.id = it.id;
  const meta = [it.type, it.author, it.date, it.language, `${it.downloads} download${it.downloads === 1 ? "" : "s"}`].filter(Boolean).join(" · ");
  li.append(el("a", { href: pageLink({ id: it.id }), className: "title" }, it.title), el("div", { className: "meta" }, meta));
  if (it.matched && Object.keys(it.matched).length > 0) {
    const dl = el("dl", { className: "matched" });
    for (const [field, snippet] of Object.entries(it.matched)) dl.append(el("dt", {}, field), el("dd", {}, matchedHTML(snippet)));
    li.append(dl);
  }
  return li;
}

/** The type and sort choices, as the OpenAPI document lists them. */
function fillChoices() {
  const select = (name: string) => form.elements.namedItem(name) as HTMLSelectElement;
  for (const t of itemTypes) select("type").append(el("option", {}, t));
  for (const s of sorts) if (s !== "relevance") select("sort").append(el("option", { value: s }, SORT_NAMES[s]));
}

function fillForm(p: URLSearchParams) {
  for (const name of FILTERS) {
    const input = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    const v = p.get(name) ?? "";
    // A list ticked in the facets is a choice of its own, so that the form keeps it.
    if (input instanceof HTMLSelectElement && v && ![...input.options].some((o) => o.value === v)) {
      input.append(el("option", { value: v }, v.split(",").join(", ")));
    }
    if (input) input.value = v;
  }
}

async function renderSearch(p: URLSearchParams, signal: AbortSignal) {
  const params: ItemsParams = { facets: FACETS, highlight: "true" };
  for (const name of [...FILTERS, "page"] as const) {
    const v = p.get(name);
    if (v) Object.assign(params, { [name]: name === "page" ? Number(v) : v });
  }
  const body = await call(client.items(params, signal), signal);
  if (!body) return;
  $("#attribution").textContent = body.attribution;
  const { page, total, total_pages } = body.pagination;
  const frag = document.createDocumentFragment();
  if (body.suggestion) {
    frag.append(el("p", { className: "suggestion" }, "Did you mean ",
      el("a", { href: pageLink({ ...Object.fromEntries(p), q: body.suggestion, page: undefined }) }, body.suggestion), "?"));
  }
  const facets = el("aside", { className: "facets", ariaLabel: "Refine" });
  // What the licence must allow, beside the licences: each use ticked narrows every count.
  const uses = el("ul");
  for (const [use, words] of Object.entries(USES)) {
    const chosen = valuesOf(p, "reuse").includes(use);
    const btn = el("button", { type: "button" }, words);
    btn.setAttribute("aria-pressed", String(chosen));
    btn.dataset.facet = "reuse";
    btn.dataset.value = use;
    btn.addEventListener("click", () => go(pageLink(Object.fromEntries(toggled(p, "reuse", use)))));
    uses.append(el("li", {}, btn));
  }
  const reuse = [el("h2", {}, "reuse"), uses];
  for (const [name, values] of Object.entries(body.facets ?? {})) {
    if (!values.length) continue;
    const ul = el("ul");
    for (const v of values) {
      const chosen = name === "year" ? p.get("from") === `${v.value}-01-01` && p.get("to") === `${v.value}-12-31` : valuesOf(p, name).includes(v.value);
      const btn = el("button", { type: "button" }, `${v.name ?? v.value} `, el("span", { className: "count" }, `(${v.count})`));
      btn.setAttribute("aria-pressed", String(chosen));
      btn.dataset.facet = name;
      btn.dataset.value = v.value;
      btn.addEventListener("click", () => {
        let next = new URLSearchParams(p);
        next.delete("page");
        if (name === "year") {
          chosen ? (next.delete("from"), next.delete("to")) : (next.set("from", `${v.value}-01-01`), next.set("to", `${v.value}-12-31`));
        } else if (LISTS.has(name)) {
          next = toggled(p, name, v.value);
        } else {
          chosen ? next.delete(name) : next.set(name, v.value);
        }
        go(pageLink(Object.fromEntries(next)));
      });
      ul.append(el("li", {}, btn));
    }
    facets.append(el("h2", {}, name), ul);
    if (name === "license") facets.append(...reuse);
  }
  if (!facets.contains(uses)) facets.append(...reuse);
  const results = el("ol", { id: "results", tabIndex: -1 } as Partial<HTMLOListElement>);
  results.setAttribute("aria-label", "Results");
  results.append(...body.data.map(result));
  const pages = el("nav", { className: "pages", ariaLabel: "Pages" });
  const at = (n: number) => pageLink({ ...Object.fromEntries(p), page: n });
  if (body.links.prev) pages.append(el("a", { href: at(page - 1), rel: "prev" }, "← Previous"));
  pages.append(el("span", {}, total ? `Page ${page} of ${total_pages} · ${total} items` : "Nothing matches."));
  if (body.links.next) pages.append(el("a", { href: at(page + 1), rel: "next" }, "Next →"));
  frag.append(el("div", { className: "layout" }, facets, el("section", { ariaLabel: "Results" }, results, pages)));
  view.replaceChildren(frag);
}

async function renderItem(id: string, signal: AbortSignal) {
  const doc = await call(client.item(id, signal), signal);
  if (!doc) return;
  const it = doc.data;
  document.title = `${it.title} · mediagw`;
  const dl = el("dl");
  const row = (k: string, v: Node | string | null | undefined) => v !== null && v !== undefined && dl.append(el("dt", {}, k), el("dd", {}, v));
  row("Type", it.type);
  row("Author", it.author && el("a", { href: pageLink({ author: it.author }) }, it.author));
  row("Category", it.category && el("a", { href: pageLink({ category: it.category }) }, it.category));
  row("Language", it.language);
  row("Date", it.date);
  row("Downloads", String(it.downloads));
  row("Summary", it.summary);
  row("Tags", it.tags.join(", ") || null);
  row("Permalink", el("a", { href: it.permalink, className: "permalink" }, it.permalink));
  row("SHA-256", it.sha256 && el("code", { className: "sha256" }, it.sha256));
  row("Licence", it.rights.url ? el("a", { href: it.rights.url, className: "license" }, it.rights.license) : it.rights.license);
  row("Rights", it.rights.statement || null);
  row("Metadata licence", it.metadata_license);
  const qr = el("img", { src: it.qr_code_url, alt: `QR code of ${it.permalink}`, className: "qr", width: 160, height: 160 });
  const related = el("ol", { id: "related" } as Partial<HTMLOListElement>);
  view.replaceChildren(el("article", { className: "item" }, el("h2", {}, it.title), dl, qr, el("h3", {}, "Related items"), related));
  const rel = await call(client.related(id, undefined, signal), signal);
  if (rel) related.append(...rel.data.map(result));
}

async function renderList(kind: "categories" | "authors", signal: AbortSignal) {
  const ul = el("ul", { id: kind } as Partial<HTMLUListElement>);
  if (kind === "categories") {
    const body = await call(client.categories(signal), signal);
    if (!body) return;
    ul.append(...body.data.map((c) => el("li", {}, el("a", { href: pageLink({ category: c.slug }) }, c.name), ` (${c.count})`)));
  } else {
    const body = await call(client.authors(signal), signal);
    if (!body) return;
    ul.append(...body.data.map((a) => el("li", {}, el("a", { href: pageLink({ author: a.name }) }, a.name), ` (${a.count})`)));
  }
  view.replaceChildren(el("h2", {}, kind === "categories" ? "Categories" : "Authors"), ul);
}

// The view being rendered: a new one cancels it, so that answers arriving out of order (a slow
// search, then a quick filtered one) never show another URL's results. The view is aria-busy until
// the current one is shown.
let rendering: AbortController | null = null;

async function render() {
  rendering?.abort();
  const ctl = (rendering = new AbortController());
  view.setAttribute("aria-busy", "true");
  const p = new URL(location.href).searchParams;
  document.title = title;
  message.hidden = true;
  message.removeAttribute("data-status");
  if (!chosenAPI) {
    message.hidden = false;
    message.dataset.status = "api-refused";
    message.textContent = `This page does not call ${pageURL.searchParams.get("api")}: it shows this site's own API instead.`;
  }
  fillForm(p);
  const id = p.get("id");
  const v = p.get("view");
  try {
    if (id) await renderItem(id, ctl.signal);
    else if (v === "categories" || v === "authors") await renderList(v, ctl.signal);
    else await renderSearch(p, ctl.signal);
  } finally {
    if (rendering === ctl) view.setAttribute("aria-busy", "false");
  }
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  closeCompletions();
  const params: Record<string, string> = {};
  for (const [k, v] of new FormData(form)) if (typeof v === "string" && v.trim()) params[k] = v.trim();
  // The filters the form has no field for (the author, those of the facets) stay as they are.
  const now = new URL(location.href).searchParams;
  for (const name of FILTERS) {
    const v = now.get(name);
    if (v && !form.elements.namedItem(name)) params[name] = v;
  }
  go(pageLink(params));
});
for (const name of ["type", "category", "sort"]) {
  (form.elements.namedItem(name) as HTMLSelectElement).addEventListener("change", () => form.requestSubmit());
}

// Completions: one request per pause in typing, the older one cancelled.
let pending: AbortController | null = null;
let timer = 0;
function closeCompletions() {
  list.hidden = true;
  qInput.setAttribute("aria-expanded", "false");
  qInput.removeAttribute("aria-activedescendant");
}
qInput.addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    pending?.abort();
    const text = qInput.value.trim();
    if (!text) return closeCompletions();
    pending = new AbortController();
    try {
      const r = await client.suggest(text, 8, pending.signal);
      showStanding(r.standing);
      // An answer that lands after the person chose an option keeps that option chosen.
      const chosen = list.querySelector('[aria-selected="true"]')?.textContent;
      list.replaceChildren(...r.body.data.map((c, i) => {
        const li = el("li", { id: `completion-${i}` }, c.text);
        li.setAttribute("role", "option");
        li.dataset.id = c.id;
        li.addEventListener("mousedown", (ev) => {
          ev.preventDefault();
          qInput.value = c.text;
          form.requestSubmit();
        });
        if (c.text === chosen) {
          li.setAttribute("aria-selected", "true");
          qInput.setAttribute("aria-activedescendant", li.id);
        }
        return li;
      }));
      list.hidden = r.body.data.length === 0;
      qInput.setAttribute("aria-expanded", String(!list.hidden));
    } catch (err) {
      if ((err as Error).name !== "AbortError") showError(err);
    }
  }, 120);
});
qInput.addEventListener("keydown", (ev) => {
  const options = [...list.querySelectorAll<HTMLLIElement>("li")];
  if (list.hidden || options.length === 0) return;
  const at = options.findIndex((o) => o.getAttribute("aria-selected") === "true");
  let next = at;
  if (ev.key === "ArrowDown") next = (at + 1) % options.length;
  else if (ev.key === "ArrowUp") next = (at - 1 + options.length) % options.length;
  else if (ev.key === "Escape") return closeCompletions();
  else if (ev.key === "Enter" && at >= 0) {
    qInput.value = options[at].textContent ?? "";
    return;
  } else return;
  ev.preventDefault();
  options.forEach((o, i) => o.setAttribute("aria-selected", String(i === next)));
  qInput.setAttribute("aria-activedescendant", options[next].id);
});
qInput.addEventListener("blur", () => setTimeout(closeCompletions, 100));

// Categories for the filter, once. Its standing is not shown: the answer often comes from the
// cache of an earlier visit, and it would race the view's own answer (a 429's standing among them).
void client.categories().then(
  ({ body }) => {
    const select = form.elements.namedItem("category") as HTMLSelectElement;
    const chosen = new URL(location.href).searchParams.get("category") ?? "";
    for (const c of body.data) select.append(el("option", { value: c.slug, selected: c.slug === chosen }, `${c.name} (${c.count})`));
  },
  () => {}, // the filter keeps "any"; the view shows the API's trouble
);
fillChoices();
void render();
