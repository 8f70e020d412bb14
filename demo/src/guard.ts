// What the page lets in from outside: which API it calls (its URL's ?api=) and which markup of the
// API's highlight snippets it keeps. Nothing here runs on import, so Node's tests can load it.

/** The API origins the operator lets the page call besides its own ({base}demo/apis.json, from
 * MEDIA_DEMO_APIS); a page served without it calls its own origin only. */
export async function allowedAPIs(page: URL): Promise<string[]> {
  try {
    const res = await fetch(new URL("apis.json", page), { headers: { Accept: "application/json" } });
    if (!res.ok) return [];
    const { apis } = (await res.json()) as { apis?: unknown };
    return Array.isArray(apis) ? apis.filter((a): a is string => typeof a === "string") : [];
  } catch {
    return [];
  }
}

/** apiBase is the API the page calls: the one it is served under ({base}demo/ -> {base}), or the
 * URL ?api= names when that is on the page's own origin or on one of allowed; null when ?api=
 * names anything else, which the page refuses rather than show another site's answers as its own. */
export function apiBase(page: URL, allowed: readonly string[]): string | null {
  const asked = page.searchParams.get("api");
  if (asked === null) return new URL("../", page).href;
  let u: URL;
  try {
    u = new URL(asked, page);
  } catch {
    return null;
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.username || u.password) return null;
  const origins = allowed.flatMap((a) => {
    try {
      return [new URL(a).origin];
    } catch {
      return [];
    }
  });
  return u.origin === page.origin || origins.includes(u.origin) ? u.href : null;
}

/** matchedHTML shows the API's snippet, whose text is HTML-escaped, as text and bare <mark>
 * elements only: the snippet is parsed inert (a template), then copied node by node, so no
 * attribute, other element or comment of it reaches the page. */
export function matchedHTML(snippet: string): DocumentFragment {
  const t = document.createElement("template");
  t.innerHTML = snippet;
  const out = document.createDocumentFragment();
  const copy = (from: Node, to: Node) => {
    for (const n of from.childNodes) {
      if (n.nodeType === Node.TEXT_NODE) to.appendChild(document.createTextNode(n.textContent ?? ""));
      else if (n instanceof Element && n.tagName === "MARK") copy(n, to.appendChild(document.createElement("mark")));
      else if (n.nodeType === Node.ELEMENT_NODE) to.appendChild(document.createTextNode(n.textContent ?? ""));
    }
  };
  copy(t.content, out);
  return out;
}
