// The search page in real Chromium against a real mediagw (scripts/browser-test.sh starts it):
// what a person does, checked against what the API answers for the same request.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

const api = process.env.MEDIAGW_URL;
const limited = process.env.MEDIAGW_LIMITED_URL;
const shots = process.env.SCREENSHOTS;
assert.ok(api && limited, "run through scripts/browser-test.sh, which starts the servers");

const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
// Without the background-networking flags Chromium keeps trying hosts a closed network refuses.
const chromiumArgs = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
});
after(async () => browser?.close());

async function page(t) {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  t.after(() => ctx.close());
  const p = await ctx.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(e));
  t.after(() => assert.deepEqual(errors, [], "the page threw"));
  return p;
}

/** The API's own answer, from outside the browser. */
async function apiGet(params, base = api) {
  const res = await fetch(`${base}?${new URLSearchParams(params)}`);
  assert.equal(res.status, 200, `${JSON.stringify(params)}: ${res.status}`);
  return res.json();
}

/** shown waits until the page shows what its URL asks for (the view stays aria-busy until then). */
const shown = (p) => p.locator('#view[aria-busy="false"]').waitFor();

const resultIDs = (p) => p.locator("#results > li").evaluateAll((lis) => lis.map((li) => li.dataset.id));

async function shot(p, name) {
  if (shots) await p.screenshot({ path: `${shots}/${name}.png`, fullPage: false });
}

test("a search lists the API's first page, in order, and shows why each item matched", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?q=thames`);
  await p.locator("#results > li").first().waitFor();
  const want = await apiGet({ resource: "items", q: "thames" });
  assert.deepEqual(await resultIDs(p), want.data.map((d) => d.id));
  assert.ok((await p.locator("#results mark").count()) > 0, "no highlighted match");
  assert.equal(await p.inputValue("#q"), "thames");
  await shot(p, "search");
});

test("a filter narrows the results and lands in the URL", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?q=thames`);
  await p.locator("#results > li").first().waitFor();
  await p.selectOption("select[name=type]", "photo");
  await p.waitForURL(/type=photo/);
  await shown(p);
  const want = await apiGet({ resource: "items", q: "thames", type: "photo" });
  assert.deepEqual(await resultIDs(p), want.data.map((d) => d.id));
  await p.goBack();
  await p.waitForURL((u) => !u.search.includes("type=photo"));
  const all = await apiGet({ resource: "items", q: "thames" });
  await p.waitForFunction((first) => document.querySelector("#results > li")?.dataset.id === first, all.data[0].id);
});

test("a facet shows counts that its filter finds", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?q=python`);
  const button = p.locator('.facets button[data-facet="category"]').first();
  await button.waitFor();
  const [value, label] = [await button.getAttribute("data-value"), await button.textContent()];
  const count = Number(label.match(/\((\d+)\)/)[1]);
  await button.click();
  await p.waitForURL(new RegExp(`category=${value}`));
  await p.locator(".pages span").filter({ hasText: `${count} items` }).waitFor();
  const want = await apiGet({ resource: "items", q: "python", category: value });
  assert.equal(want.pagination.total, count);
  await shot(p, "facets");
});

test("several values of a facet ticked at once find items of any of them, and a use narrows them", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/`);
  const types = p.locator('.facets button[data-facet="type"]');
  await types.nth(1).waitFor();
  for (const facet of ["license", "format", "duration"]) {
    assert.ok((await p.locator(`.facets button[data-facet="${facet}"]`).count()) > 0, `no ${facet} facet`);
  }
  const [a, b] = [await types.nth(0).getAttribute("data-value"), await types.nth(1).getAttribute("data-value")];
  await types.nth(0).click();
  await p.waitForURL((u) => u.searchParams.get("type") === a);
  await shown(p);
  await p.locator(`.facets button[data-facet="type"][data-value="${b}"]`).click();
  const both = [a, b].sort().join(",");
  await p.waitForURL((u) => u.searchParams.get("type") === both);
  await shown(p);
  const want = await apiGet({ resource: "items", type: both });
  assert.deepEqual(await resultIDs(p), want.data.map((d) => d.id));
  assert.equal(await p.locator('.facets button[data-facet="type"][aria-pressed="true"]').count(), 2);
  await p.locator('.facets button[data-facet="reuse"][data-value="commercial"]').click();
  await p.waitForURL((u) => u.searchParams.get("reuse") === "commercial" && u.searchParams.get("type") === both);
  await shown(p);
  const open = await apiGet({ resource: "items", type: both, reuse: "commercial" });
  assert.deepEqual(await resultIDs(p), open.data.map((d) => d.id));
  assert.equal(await p.locator('.facets button[data-facet="reuse"][aria-pressed="true"]').count(), 1);
});

test("pages: next shows the API's second page, and back returns", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?type=document&sort=az`);
  await p.locator("#results > li").first().waitFor();
  await p.click("a[rel=next]");
  await p.waitForURL(/page=2/);
  const want = await apiGet({ resource: "items", type: "document", sort: "az", page: 2 });
  await p.waitForFunction((first) => document.querySelector("#results > li")?.dataset.id === first, want.data[0].id);
  assert.deepEqual(await resultIDs(p), want.data.map((d) => d.id));
});

test("an item shows its permalink, SHA-256, a QR code that loads, and related items", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?q=pride%20and%20prejudice`);
  const first = p.locator("#results > li").first();
  await first.waitFor();
  const id = await first.getAttribute("data-id");
  await first.locator("a.title").click();
  await p.waitForURL((u) => u.searchParams.get("id") === id);
  const doc = await apiGet({ resource: "item", id });
  await p.locator("a.permalink").waitFor();
  assert.equal(await p.locator("a.permalink").getAttribute("href"), doc.data.permalink);
  const qr = p.locator("img.qr");
  await qr.waitFor();
  await p.waitForFunction(() => document.querySelector("img.qr")?.complete);
  assert.ok((await qr.evaluate((img) => img.naturalWidth)) > 0, "the QR code did not load");
  await p.locator("#related > li").first().waitFor();
  const related = await apiGet({ resource: "related", id });
  assert.deepEqual(await p.locator("#related > li").evaluateAll((lis) => lis.map((li) => li.dataset.id)), related.data.map((d) => d.id));
  await shot(p, "item");
});

test("typing offers completions; choosing one searches it", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/`);
  await p.locator("#q").pressSequentially("pride and prej", { delay: 20 });
  const option = p.locator("#completions li").first();
  await option.waitFor();
  const want = await apiGet({ resource: "suggest", q: "pride and prej", per_page: 8 });
  assert.equal(await option.textContent(), want.data[0].text);
  await p.keyboard.press("ArrowDown");
  assert.equal(await p.getAttribute("#q", "aria-activedescendant"), await option.getAttribute("id"));
  await shot(p, "completions");
  await p.keyboard.press("Enter");
  await p.keyboard.press("Enter");
  await p.waitForURL(/q=/);
  assert.equal(new URL(p.url()).searchParams.get("q"), want.data[0].text);
});

/** The options a picker shows: each entry's value and its count. */
const options = (p, id) =>
  p.locator(`#${id} li`).evaluateAll((lis) => lis.map((li) => ({ value: li.dataset.value, count: Number(li.querySelector(".count")?.textContent.match(/\d+/)[0]) })));

test("the author picker finds authors as one types, biggest first, counted under the page's filters; one chosen filters the items", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?type=document`);
  await shown(p);
  const box = p.locator("#author");
  await box.click();
  await box.pressSequentially("smith", { delay: 20 });
  const want = await apiGet({ resource: "authors", q: "smith", sort: "count", per_page: 10, type: "document" });
  assert.ok(want.data.length > 1, "the catalogue has several authors named smith");
  const list = p.locator("#author-options");
  await p.waitForFunction((first) => document.querySelector("#author-options li")?.dataset.value === first && !document.querySelector("#author-options").hidden, want.data[0].name);
  assert.deepEqual(await options(p, "author-options"), want.data.map((a) => ({ value: a.name, count: a.count })));
  assert.equal(await box.getAttribute("aria-expanded"), "true");
  assert.equal(await list.getAttribute("role"), "listbox");
  await shot(p, "author-picker");
  // The arrows move the active option (the last wraps to the first), Escape closes the list.
  await p.keyboard.press("ArrowDown");
  await p.keyboard.press("ArrowDown");
  const second = p.locator("#author-options li").nth(1);
  assert.equal(await box.getAttribute("aria-activedescendant"), await second.getAttribute("id"));
  assert.equal(await second.getAttribute("aria-selected"), "true");
  await p.keyboard.press("Escape");
  assert.equal(await list.isHidden(), true);
  assert.equal(await box.getAttribute("aria-expanded"), "false");
  assert.equal(await box.getAttribute("aria-activedescendant"), null);
  // The down arrow opens it again; Enter chooses the active option and searches with it.
  await p.keyboard.press("ArrowDown");
  await p.locator("#author-options li").first().waitFor();
  await p.keyboard.press("ArrowDown");
  await p.keyboard.press("ArrowDown");
  const chosen = want.data[1];
  await p.keyboard.press("Enter");
  await p.waitForURL((u) => u.searchParams.get("author") === chosen.name && u.searchParams.get("type") === "document");
  await shown(p);
  const items = await apiGet({ resource: "items", author: chosen.name, type: "document" });
  assert.equal(items.pagination.total, chosen.count, "the picker's count is the items' total");
  assert.deepEqual(await resultIDs(p), items.data.map((d) => d.id));
  assert.equal(await box.inputValue(), chosen.name);
  // Emptied, the box drops the filter and keeps the others.
  await box.fill("");
  await box.press("Enter");
  await p.waitForURL((u) => !u.searchParams.has("author") && u.searchParams.get("type") === "document");
});

test("the category picker offers the biggest categories under the page's filters and finds the rest by name", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?type=video`);
  await shown(p);
  const box = p.locator("#category");
  await box.click();
  const top = await apiGet({ resource: "categories", sort: "count", per_page: 10, type: "video" });
  await p.waitForFunction((first) => document.querySelector("#category-options li")?.dataset.value === first && !document.querySelector("#category-options").hidden, top.data[0].slug);
  assert.deepEqual(await options(p, "category-options"), top.data.map((c) => ({ value: c.slug, count: c.count })));
  await shot(p, "category-picker");
  // One past the ten biggest is found by its name, and a click chooses it.
  const all = await apiGet({ resource: "categories", sort: "count", type: "video" });
  let other;
  for (const c of all.data.slice(10).reverse()) {
    const found = await apiGet({ resource: "categories", q: c.name, sort: "count", per_page: 10, type: "video" });
    if (found.data.some((f) => f.slug === c.slug)) {
      other = c;
      break;
    }
  }
  assert.ok(other, "no category past the ten biggest is found by its name");
  await box.pressSequentially(other.name, { delay: 10 });
  const found = p.locator(`#category-options li[data-value="${other.slug}"]`);
  await found.waitFor();
  await found.click();
  await p.waitForURL((u) => u.searchParams.get("category") === other.slug && u.searchParams.get("type") === "video");
  await shown(p);
  const items = await apiGet({ resource: "items", category: other.slug, type: "video" });
  assert.equal(items.pagination.total, other.count);
  assert.deepEqual(await resultIDs(p), items.data.map((d) => d.id));
  assert.equal(await box.inputValue(), other.name);
});

test("a picker's error shows as the page's others", async (t) => {
  const p = await page(t);
  await p.route(/resource=authors/, (route) =>
    route.fulfill({ status: 503, contentType: "application/problem+json", headers: { "Retry-After": "5" },
      body: JSON.stringify({ type: "about:blank", title: "Service Unavailable", status: 503, detail: "the index is busy" }) }));
  await p.goto(`${api}demo/`);
  await shown(p);
  await p.locator("#author").pressSequentially("tw", { delay: 20 });
  const message = p.locator('#message[data-status="503"]');
  await message.waitFor();
  assert.match(await message.textContent(), /Service Unavailable/);
});

test("a misspelt search offers the API's correction as a link that runs it", async (t) => {
  const p = await page(t);
  // The first of these misspellings the API corrects (which it corrects is the did-you-mean's to choose).
  let q, want;
  for (q of ["bilss and heaven", "performance sitll", "preforance still", "moby dikc", "heart of drakness"]) {
    want = await apiGet({ resource: "items", q, sort: "az" });
    if (want.suggestion) break;
  }
  assert.ok(want.suggestion, "the API corrected none of the misspellings");
  await p.goto(`${api}demo/?q=${encodeURIComponent(q)}&sort=az`);
  const link = p.locator(".suggestion a");
  await link.waitFor();
  assert.equal(await link.textContent(), want.suggestion);
  await link.click();
  await p.waitForURL((u) => u.searchParams.get("q") === want.suggestion);
  await shown(p);
  assert.equal(new URL(p.url()).searchParams.get("sort"), "az", "the correction dropped the order");
  assert.equal(await p.inputValue("#q"), want.suggestion);
  const corrected = await apiGet({ resource: "items", q: want.suggestion, sort: "az" });
  assert.deepEqual(await resultIDs(p), corrected.data.map((d) => d.id));
});

test("the search box's help names the operators", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/`);
  const help = p.locator("#" + (await p.getAttribute("#q", "aria-describedby")));
  const text = await help.textContent();
  assert.ok(text.includes('"exact phrase"') && text.includes("-word"), `help text: ${text}`);
  assert.ok(await help.isVisible());
});

test("categories and authors list what the API lists, a page at a time", async (t) => {
  const p = await page(t);
  const names = (kind) => p.locator(`#${kind} li a`).allTextContents();
  await p.goto(`${api}demo/?view=categories`);
  await p.locator("#categories li").first().waitFor();
  const cats = await apiGet({ resource: "categories", page: 1, per_page: 200 });
  assert.deepEqual(await names("categories"), cats.data.map((c) => c.name));
  await shot(p, "categories");
  await p.goto(`${api}demo/?view=authors`);
  await p.locator("#authors li").first().waitFor();
  const authors = await apiGet({ resource: "authors", page: 1, per_page: 200 });
  assert.deepEqual(await names("authors"), authors.data.map((a) => a.name));
  assert.ok(authors.links.next, "the authors take more than a page");
  await p.click("a[rel=next]");
  await p.waitForURL((u) => u.searchParams.get("page") === "2" && u.searchParams.get("view") === "authors");
  const second = await apiGet({ resource: "authors", page: 2, per_page: 200 });
  await p.waitForFunction((first) => document.querySelector("#authors li a")?.textContent === first, second.data[0].name);
  assert.deepEqual(await names("authors"), second.data.map((a) => a.name));
});

/** focused names the element with the keyboard focus and says whether its focus can be seen. */
const focused = (p) =>
  p.evaluate(() => {
    const e = document.activeElement;
    const s = getComputedStyle(e);
    const box = e.getBoundingClientRect();
    return {
      name: e.id || e.getAttribute("name") || e.className,
      visible: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0 && box.width > 0 && box.right > 0 && box.bottom > 0,
      id: e.closest("li")?.dataset.id,
    };
  });

test("keyboard only: the search box, a filter and a result are reachable, with visible focus", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?q=thames`);
  await shown(p);
  // Tab from the top: the skip link first, then the search box and the filters.
  const seen = new Map();
  for (let i = 0; i < 10 && !seen.has("type"); i++) {
    await p.keyboard.press("Tab");
    const f = await focused(p);
    seen.set(f.name, f.visible);
  }
  for (const want of ["skip", "q", "type"]) assert.equal(seen.get(want), true, `${want} reached by Tab with a visible focus: ${JSON.stringify([...seen])}`);
  // The arrow keys choose a type on the filter, which searches it.
  await p.keyboard.press("ArrowDown");
  await p.waitForURL(/type=photo/);
  await shown(p);
  const want = await apiGet({ resource: "items", q: "thames", type: "photo" });
  // The skip link leads past the form and the facets to the results: the next Tab is the first result.
  for (let i = 0; i < 10 && (await focused(p)).name !== "skip"; i++) await p.keyboard.press("Shift+Tab");
  await p.keyboard.press("Enter");
  await p.keyboard.press("Tab");
  const first = await focused(p);
  assert.deepEqual(first, { name: "title", visible: true, id: want.data[0].id });
  await p.keyboard.press("Enter");
  await p.waitForURL((u) => u.searchParams.get("id") === want.data[0].id);
  for (const label of await p.locator("input, select").evaluateAll((els) => els.map((e) => e.labels?.length ?? 0))) assert.ok(label > 0, "a control without a label");
});

test("chromium --dump-dom lists the API's first page: the page needs no person to show results", async () => {
  const profile = await mkdtemp(join(tmpdir(), "dump-dom-"));
  try {
    // The virtual time budget lets the page's fetches finish before the DOM is printed.
    const { stdout } = await promisify(execFile)(
      chromiumPath,
      [...chromiumArgs, "--headless", `--user-data-dir=${profile}`, "--virtual-time-budget=5000", "--dump-dom", `${api}demo/?q=thames`],
      { maxBuffer: 16 << 20 },
    );
    const results = stdout.match(/<ol id="results"[^>]*>([\s\S]*?)<\/ol>/);
    assert.ok(results, "no results in the dumped DOM");
    const ids = [...results[1].matchAll(/<li data-id="([^"]+)"/g)].map((m) => m[1]);
    const want = await apiGet({ resource: "items", q: "thames" });
    assert.deepEqual(ids, want.data.map((d) => d.id));
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
});

test("a page on another origin calls the API and reads RateLimit, Link and ETag", async (t) => {
  const server = http.createServer((_, res) => {
    res.setHeader("Content-Type", "text/html");
    res.end(`<!doctype html><pre id="out"></pre><script type="module">
      const r = await fetch(${JSON.stringify(`${api}?resource=items&q=thames&per_page=5`)});
      const h = (n) => r.headers.get(n);
      document.getElementById("out").textContent = JSON.stringify({ status: r.status, ratelimit: h("RateLimit"), policy: h("RateLimit-Policy"), link: h("Link"), etag: h("ETag"), total: (await r.json()).pagination.total });
    </script>`);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  t.after(() => server.close());
  const p = await page(t);
  await p.goto(`http://127.0.0.1:${server.address().port}/`);
  await p.waitForFunction(() => document.getElementById("out").textContent !== "");
  const got = JSON.parse(await p.textContent("#out"));
  assert.equal(got.status, 200);
  assert.match(got.ratelimit, /^"default";r=\d+;t=\d+$/);
  assert.match(got.policy, /q=\d+;w=\d+/);
  assert.match(got.link, /rel="next"/);
  assert.match(got.etag, /^W\/"/);
  assert.ok(got.total > 0);
});

test("?api= naming an origin the operator did not allow is refused: the page shows its own API and says so", async (t) => {
  let asked = 0;
  const fake = http.createServer((_, res) => {
    asked++;
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ data: [{ id: "fake", title: "Log in at evil.example" }] }));
  });
  await new Promise((ok) => fake.listen(0, "127.0.0.1", ok));
  t.after(() => fake.close());
  const p = await page(t);
  await p.goto(`${api}demo/?q=thames&api=${encodeURIComponent(`http://127.0.0.1:${fake.address().port}/`)}`);
  await p.locator("#results > li").first().waitFor();
  const want = await apiGet({ resource: "items", q: "thames" });
  assert.deepEqual(await resultIDs(p), want.data.map((d) => d.id));
  assert.match(await p.locator('#message[data-status="api-refused"]').textContent(), /does not call http:\/\/127\.0\.0\.1:\d+\//);
  assert.ok(!(await p.locator("#results a.title").first().getAttribute("href")).includes("api="), "links keep the refused ?api=");
  assert.equal(asked, 0, "the page called the origin it refused");
});

test("?api= naming an origin of MEDIA_DEMO_APIS is followed", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/?q=river&api=${encodeURIComponent(limited)}`);
  await shown(p);
  // The limited server's own limit: its answers are the ones shown.
  assert.match(await p.textContent("#standing"), /of 12 requests left/);
  assert.equal(await p.locator("#message").isVisible(), false);
});

test("highlights keep bare <mark> only: no attribute, element or comment of a snippet reaches the page", async (t) => {
  const p = await page(t);
  await p.goto(`${api}demo/`);
  await shown(p);
  const html = await p.evaluate(async () => {
    const { matchedHTML } = await import(new URL("guard.js", location.href).href);
    const div = document.createElement("div");
    div.append(matchedHTML('<mark onmouseover="alert(1)" style="color:red" class="x">a</mark> <b>b</b><img src=x onerror="alert(2)"><mark><mark id=y>c</mark></mark>&lt;mark&gt;<!--c--><svg><mark onload=alert(3)>d</mark></svg>'));
    return div.innerHTML;
  });
  assert.equal(html, "<mark>a</mark> b<mark><mark>c</mark></mark>&lt;mark&gt;d");
});

test("past the rate limit the page says when to try again", async (t) => {
  const p = await page(t);
  const message = p.locator('#message[data-status="429"]');
  for (let i = 0; i < 20 && !(await message.isVisible()); i++) {
    await p.goto(`${limited}demo/?q=river&page=${i + 1}`);
    await p.waitForFunction(() => document.querySelector("#results") || !document.getElementById("message").hidden);
  }
  await message.waitFor();
  assert.match(await message.textContent(), /try|again in \d+ seconds/i);
  assert.match(await p.textContent("#standing"), /0 of 12 requests left; more in \d+ s/);
  await shot(p, "rate-limited");
});

test("past the rate limit a picker says when to try again", async (t) => {
  const p = await page(t);
  await p.goto(`${limited}demo/`);
  await p.waitForFunction(() => document.querySelector("#results") || !document.getElementById("message").hidden);
  // The view's own 429 hidden, only the picker's can show.
  await p.evaluate(() => (document.getElementById("message").hidden = true));
  const box = p.locator("#author");
  let status = 0;
  for (let i = 0; i < 20 && status !== 429; i++) {
    const answer = p.waitForResponse((r) => r.url().includes("resource=authors"));
    await box.fill(`a${"b".repeat(i)}`);
    status = (await answer).status();
  }
  assert.equal(status, 429);
  await p.locator('#message[data-status="429"]').waitFor();
  assert.match(await p.textContent("#message"), /again in (\d+|a few) seconds/);
});
