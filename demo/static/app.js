// The search page: everything it shows comes from the public API through the typed client, and
// everything it shows follows from its URL, so a view can be shared and the back button works.
import { ApiError, Client, itemTypes, listSorts, sorts } from "./client.js";
import { Combobox } from "./combobox.js";
import { allowedAPIs, apiBase, matchedHTML } from "./guard.js";
// The API answers on the base path this page is served under ({base}demo/ -> {base}); ?api=
// points the page at another API, on its own origin or one the operator allows (guard.ts).
const pageURL = new URL(location.href);
const chosenAPI = apiBase(pageURL, pageURL.searchParams.has("api") ? await allowedAPIs(pageURL) : []);
const client = new Client(chosenAPI ?? new URL("../", pageURL).href);
const $ = (sel) => document.querySelector(sel);
const form = $("#search");
const qInput = $("#q");
const list = $("#completions");
const view = $("#view");
const message = $("#message");
const title = document.title;
const FILTERS = ["q", "type", "category", "author", "language", "license", "reuse", "format", "duration", "has", "from", "to", "sort"];
const FACETS = "type,category,language,year,license,format,duration";
// The facets whose filter takes a comma list: several of their values can be ticked at once.
const LISTS = new Set(["type", "category", "language", "license", "format", "duration"]);
// The filters the author and category lists take, whose items their counts are of.
const LIST_FILTERS = ["type", "category", "language", "license", "reuse", "format", "duration", "has", "from", "to"];
// The filters chosen in a picker rather than a field of the form.
const PICKERS = ["author", "category"];
// How many entries a picker offers: the biggest, or those whose name holds what was typed.
const PICKER_SIZE = 10;
// The entries of the categories or authors view on each of its pages.
const LIST_PAGE = 200;
// The uses a licence may allow, as the reuse filter names them, with their words.
const USES = { commercial: "commercial use", modification: "modification" };
/** The values of a comma list parameter. */
const valuesOf = (p, name) => (p.get(name) ?? "").split(",").filter(Boolean);
/** p with value ticked or unticked in the comma list name, on the first page. */
function toggled(p, name, value) {
    const next = new URLSearchParams(p);
    next.delete("page");
    const vs = valuesOf(p, name);
    const list = vs.includes(value) ? vs.filter((v) => v !== value) : [...vs, value].sort();
    list.length ? next.set(name, list.join(",")) : next.delete(name);
    return next;
}
const SORT_NAMES = { newest: "newest", oldest: "oldest", downloads: "most downloaded", az: "title A–Z" };
const named = (s) => s !== "relevance" && !listSorts.includes(s);
function el(tag, props = {}, ...kids) {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...kids);
    return e;
}
/** A link to this page with params, keeping an accepted ?api=. */
function pageLink(params) {
    const u = new URL("./", location.href);
    const api = pageURL.searchParams.get("api");
    if (api && chosenAPI)
        u.searchParams.set("api", api);
    for (const [k, v] of Object.entries(params))
        if (v !== undefined && v !== "")
            u.searchParams.set(k, String(v));
    return u.pathname + u.search;
}
function go(href) {
    history.pushState(null, "", href);
    void render();
}
// Links inside the page navigate without reloading; the skip link moves the keyboard focus to the
// results (or whatever the view shows), past the form and the facets.
document.addEventListener("click", (ev) => {
    const a = ev.target.closest("a");
    if (!a || a.origin !== location.origin || !a.pathname.endsWith("/demo/") || ev.ctrlKey || ev.metaKey)
        return;
    ev.preventDefault();
    if (a.classList.contains("skip"))
        return (document.querySelector("#results") ?? view).focus();
    go(a.pathname + a.search);
});
addEventListener("popstate", () => void render());
function showStanding(s) {
    if (!s)
        return;
    const left = `${s.remaining} of ${Number.isNaN(s.limit) ? "?" : s.limit} requests left`;
    $("#standing").textContent = s.remaining > 0 ? `Rate limit: ${left}.` : `Rate limit: ${left}; more in ${s.retryIn} s.`;
}
function showError(err) {
    if (err.name === "AbortError")
        return;
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
    message.textContent = `The API could not be reached: ${err.message}`;
}
/** call waits for an answer and shows the standing or the error; null when it failed or when a newer
 * view superseded the one that asked (signal aborted), whose answer must not replace the newer one's. */
async function call(p, signal) {
    try {
        const r = await p;
        showStanding(r.standing);
        return signal?.aborted ? null : r.body;
    }
    catch (err) {
        if (!signal?.aborted)
            showError(err);
        return null;
    }
}
/** The links to the pages before and after one the API answered, which p asked for. */
function pages(p, body, noun) {
    const nav = el("nav", { className: "pages", ariaLabel: "Pages" });
    const { page, total, total_pages } = body.pagination;
    const at = (n) => pageLink({ ...Object.fromEntries(p), page: n });
    if (body.links.prev)
        nav.append(el("a", { href: at(page - 1), rel: "prev" }, "← Previous"));
    nav.append(el("span", {}, total ? `Page ${page} of ${total_pages} · ${total} ${noun}` : "Nothing matches."));
    if (body.links.next)
        nav.append(el("a", { href: at(page + 1), rel: "next" }, "Next →"));
    return nav;
}
function result(it) {
    const li = el("li");
    li.dataset.id = it.id;
    const meta = [it.type, it.author, it.date, it.language, `${it.downloads} download${it.downloads === 1 ? "" : "s"}`].filter(Boolean).join(" · ");
    li.append(el("a", { href: pageLink({ id: it.id }), className: "title" }, it.title), el("div", { className: "meta" }, meta));
    if (it.matched && Object.keys(it.matched).length > 0) {
        const dl = el("dl", { className: "matched" });
        for (const [field, snippet] of Object.entries(it.matched))
            dl.append(el("dt", {}, field), el("dd", {}, matchedHTML(snippet)));
        li.append(dl);
    }
    return li;
}
/** The type and sort choices, as the OpenAPI document lists them. */
function fillChoices() {
    const select = (name) => form.elements.namedItem(name);
    for (const t of itemTypes)
        select("type").append(el("option", {}, t));
    for (const s of sorts)
        if (named(s))
            select("sort").append(el("option", { value: s }, SORT_NAMES[s]));
}
// Each picker's filter as the URL gives it (its box shows it in words), and the categories' names
// by slug from every answer that names them.
const picked = { author: "", category: "" };
const categoryNames = new Map();
const pickerBox = (name) => form.elements.namedItem(name);
function showPicked(name, value) {
    picked[name] = value;
    pickerBox(name).value = name === "category" ? value.split(",").filter(Boolean).map((s) => categoryNames.get(s) ?? s).join(", ") : value;
}
/** The page's filters that a list of name takes (never its own), as its URL gives them. */
function listFilters(name) {
    const p = new URL(location.href).searchParams;
    const out = {};
    for (const f of LIST_FILTERS) {
        const v = p.get(f);
        if (v && f !== name)
            Object.assign(out, { [f]: v });
    }
    return out;
}
function fillForm(p) {
    for (const name of PICKERS)
        showPicked(name, p.get(name) ?? "");
    for (const name of FILTERS) {
        if (PICKERS.includes(name))
            continue;
        const input = form.elements.namedItem(name);
        const v = p.get(name) ?? "";
        // A list ticked in the facets is a choice of its own, so that the form keeps it.
        if (input instanceof HTMLSelectElement && v && ![...input.options].some((o) => o.value === v)) {
            input.append(el("option", { value: v }, v.split(",").join(", ")));
        }
        if (input)
            input.value = v;
    }
}
async function renderSearch(p, signal) {
    const params = { facets: FACETS, highlight: "true" };
    for (const name of [...FILTERS, "page"]) {
        const v = p.get(name);
        if (v)
            Object.assign(params, { [name]: name === "page" ? Number(v) : v });
    }
    const body = await call(client.items(params, signal), signal);
    if (!body)
        return;
    $("#attribution").textContent = body.attribution;
    for (const c of body.facets?.category ?? [])
        if (c.name)
            categoryNames.set(c.value, c.name);
    if (document.activeElement !== pickerBox("category"))
        showPicked("category", p.get("category") ?? "");
    const frag = document.createDocumentFragment();
    if (body.suggestion) {
        frag.append(el("p", { className: "suggestion" }, "Did you mean ", el("a", { href: pageLink({ ...Object.fromEntries(p), q: body.suggestion, page: undefined }) }, body.suggestion), "?"));
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
        if (!values.length)
            continue;
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
                }
                else if (LISTS.has(name)) {
                    next = toggled(p, name, v.value);
                }
                else {
                    chosen ? next.delete(name) : next.set(name, v.value);
                }
                go(pageLink(Object.fromEntries(next)));
            });
            ul.append(el("li", {}, btn));
        }
        facets.append(el("h2", {}, name), ul);
        if (name === "license")
            facets.append(...reuse);
    }
    if (!facets.contains(uses))
        facets.append(...reuse);
    const results = el("ol", { id: "results", tabIndex: -1 });
    results.setAttribute("aria-label", "Results");
    results.append(...body.data.map(result));
    frag.append(el("div", { className: "layout" }, facets, el("section", { ariaLabel: "Results" }, results, pages(p, body, "items"))));
    view.replaceChildren(frag);
}
async function renderItem(id, signal) {
    const doc = await call(client.item(id, signal), signal);
    if (!doc)
        return;
    const it = doc.data;
    document.title = `${it.title} · mediagw`;
    const dl = el("dl");
    const row = (k, v) => v !== null && v !== undefined && dl.append(el("dt", {}, k), el("dd", {}, v));
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
    const related = el("ol", { id: "related" });
    view.replaceChildren(el("article", { className: "item" }, el("h2", {}, it.title), dl, qr, el("h3", {}, "Related items"), related));
    const rel = await call(client.related(id, undefined, signal), signal);
    if (rel)
        related.append(...rel.data.map(result));
}
async function renderList(kind, p, signal) {
    // A page of the list at a time: at a million items there are a hundred thousand authors.
    const params = { page: Number(p.get("page") ?? 1), per_page: LIST_PAGE };
    const body = await call(kind === "categories" ? client.categories(params, signal) : client.authors(params, signal), signal);
    if (!body?.pagination || !body.links)
        return;
    const ul = el("ul", { id: kind });
    for (const e of body.data) {
        const filter = "slug" in e ? { category: e.slug } : { author: e.name };
        ul.append(el("li", {}, el("a", { href: pageLink(filter) }, e.name), ` (${e.count})`));
    }
    const list = { pagination: body.pagination, links: body.links };
    view.replaceChildren(el("h2", {}, kind === "categories" ? "Categories" : "Authors"), ul, pages(p, list, kind));
}
// The view being rendered: a new one cancels it, so that answers arriving out of order (a slow
// search, then a quick filtered one) never show another URL's results. The view is aria-busy until
// the current one is shown.
let rendering = null;
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
        if (id)
            await renderItem(id, ctl.signal);
        else if (v === "categories" || v === "authors")
            await renderList(v, p, ctl.signal);
        else
            await renderSearch(p, ctl.signal);
    }
    finally {
        if (rendering === ctl)
            view.setAttribute("aria-busy", "false");
    }
}
const completions = new Combobox({
    input: qInput,
    listbox: list,
    load: async (text, signal) => (await call(client.suggest(text, 8, signal), signal))?.data.map((c) => ({ value: c.text, text: c.text })) ?? null,
    choose: (o) => (qInput.value = o.text),
});
// The pickers list the biggest entries under the page's other filters until something is typed.
const pickers = [
    new Combobox({
        input: pickerBox("author"),
        listbox: $("#author-options"),
        openEmpty: true,
        load: async (text, signal) => {
            const body = await call(client.authors({ ...listFilters("author"), q: text || undefined, sort: "count", per_page: PICKER_SIZE }, signal), signal);
            return body?.data.map((a) => ({ value: a.name, text: a.name, count: a.count })) ?? null;
        },
        choose: (o) => showPicked("author", o.value),
    }),
    new Combobox({
        input: pickerBox("category"),
        listbox: $("#category-options"),
        openEmpty: true,
        load: async (text, signal) => {
            const body = await call(client.categories({ ...listFilters("category"), q: text || undefined, sort: "count", per_page: PICKER_SIZE }, signal), signal);
            for (const c of body?.data ?? [])
                categoryNames.set(c.slug, c.name);
            return body?.data.map((c) => ({ value: c.slug, text: c.name, count: c.count })) ?? null;
        },
        choose: (o) => showPicked("category", o.value),
    }),
];
form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    for (const c of [completions, ...pickers])
        c.close();
    const params = {};
    for (const [k, v] of new FormData(form))
        if (typeof v === "string" && v.trim())
            params[k] = v.trim();
    // The filters the form has no field for (those of the facets) stay as they are.
    const now = new URL(location.href).searchParams;
    for (const name of FILTERS) {
        const v = now.get(name);
        if (v && !form.elements.namedItem(name))
            params[name] = v;
    }
    // A picker's box emptied drops its filter; text typed but not chosen leaves the filter as it was.
    for (const name of PICKERS)
        if (pickerBox(name).value.trim() && picked[name])
            params[name] = picked[name];
    go(pageLink(params));
});
for (const name of ["type", "sort"]) {
    form.elements.namedItem(name).addEventListener("change", () => form.requestSubmit());
}
fillChoices();
void render();
