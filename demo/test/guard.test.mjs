// The page's origin rule, in Node (no browser needed): ?api= is followed only to the page's own
// origin or one the operator allows. The sanitizer needs a DOM: browser.test.mjs checks it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { apiBase } from "../static/guard.js";

const page = (query) => new URL(`https://media.example.org/media/demo/${query}`);
const allowed = ["https://api.example.org", "http://127.0.0.1:18181/"];

test("apiBase follows ?api= only to the page's own origin or an allowed one", () => {
  for (const [query, want] of [
    ["", "https://media.example.org/media/"],
    ["?q=thames", "https://media.example.org/media/"],
    ["?api=/other/", "https://media.example.org/other/"],
    ["?api=https://media.example.org/v2/", "https://media.example.org/v2/"],
    ["?api=https://api.example.org/", "https://api.example.org/"],
    ["?api=https://API.example.org:443/x/", "https://api.example.org/x/"],
    ["?api=http://127.0.0.1:18181/", "http://127.0.0.1:18181/"],
    ["?api=https://evil.example/", null],
    ["?api=http://media.example.org/", null], // another scheme is another origin
    ["?api=https://media.example.org:8443/", null],
    ["?api=https://api.example.org.evil.example/", null],
    ["?api=https://api.example.org@evil.example/", null],
    ["?api=https://user:pw@api.example.org/", null],
    ["?api=//evil.example/", null],
    ["?api=javascript:alert(1)", null],
    ["?api=data:application/json,{}", null],
    ["?api=http://[::1", null],
  ]) {
    assert.equal(apiBase(page(query), allowed), want, query);
  }
});

test("without an allow-list only the page's own origin is followed", () => {
  assert.equal(apiBase(page("?api=https://api.example.org/"), []), null);
  assert.equal(apiBase(page("?api=https://media.example.org/"), []), "https://media.example.org/");
  // An entry that is no URL allows nothing.
  assert.equal(apiBase(page("?api=https://evil.example/"), ["evil.example", "*"]), null);
});
