// Search across modules: the hybrid results (words and meaning) with their modules and scores.
import { api } from "./api.js";
import { errorNotice, fill, h, loading, notice } from "./dom.js";
import * as fmt from "./format.js";

function target(result) {
  const m = result.metadata || {};
  const slug = m.moduleSlug || m.module;
  if (result.sourceType === "module_record" && slug) return fmt.recordHref(slug, m.recordId || result.sourceId);
  return null;
}

const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" };
const unescape = (text) => text.replace(/&(amp|lt|gt|quot|#x27);/g, (e) => ENTITIES[e]);

/** The snippet (escaped HTML with <mark> around the query's words) as text and <mark>s. */
function snippet(text) {
  return text.split(/(<mark>.*?<\/mark>)/).map((part) => {
    const hit = /^<mark>(.*)<\/mark>$/.exec(part);
    return hit ? h("mark", {}, unescape(hit[1])) : unescape(part);
  });
}

function parts(m) {
  const out = [];
  if (typeof m.keywordScore === "number") out.push(`words ${fmt.score(m.keywordScore)}`);
  if (typeof m.similarity === "number") out.push(`meaning ${fmt.score(m.similarity)}`);
  return out.length ? ` (${out.join(", ")})` : "";
}

export async function searchView(root, params) {
  const q = params.get("q") || "";
  const box = h("input", { id: "search-q", type: "search", name: "q", value: q, required: true, maxlength: 1000, placeholder: "Search every module" });
  const out = h("div", { id: "search-out", "aria-live": "polite" });
  const form = h(
    "form",
    {
      role: "search",
      class: "toolbar",
      onsubmit: (e) => {
        e.preventDefault();
        location.hash = `#/search?${new URLSearchParams({ q: box.value })}`;
      },
    },
    h("label", { for: "search-q", class: "sr" }, "Search"),
    box,
    h("button", { type: "submit", class: "primary" }, "Search"),
  );
  fill(root, h("h1", {}, "Search"), form, out);
  if (!q) {
    box.focus();
    return;
  }
  fill(out, loading());
  let found;
  try {
    found = await api("POST", "/v1/search", { query: q, limit: 25 });
  } catch (err) {
    fill(out, errorNotice(err));
    return;
  }
  const names = new Map();
  try {
    for (const m of (await api("GET", "/v1/modules")).modules) names.set(m.slug, m.name);
  } catch {
    // module names are a nicety; the slugs stand in
  }
  fill(
    out,
    found.coverage && found.coverage.vectorsWaiting ? notice(`${fmt.count(found.coverage.vectorsWaiting)} records are still waiting for their meaning vectors: found by their words only.`, "info") : null,
    found.fallback ? notice("Search is not available on this server (the index is off): no results.", "warn") : null,
    h("p", { class: "muted", id: "search-total" }, `${fmt.count(found.total)} results for “${q}”`),
    h(
      "ol",
      { class: "results", id: "search-results" },
      found.results.map((r) => {
        const m = r.metadata || {};
        const slug = m.moduleSlug || m.module || r.sourceType;
        const link = target(r);
        return h(
          "li",
          { dataset: { sourceId: r.sourceId } },
          h("div", { class: "result-head" }, link ? h("a", { href: link }, r.title) : h("strong", {}, r.title), " ", h("span", { class: "chip" }, names.get(slug) || slug), " ", h("span", { class: "score", title: "relevance score" }, `score ${fmt.score(r.score)}${parts(m)}`)),
          r.snippet ? h("p", { class: "snippet" }, snippet(r.snippet)) : null,
        );
      }),
    ),
  );
}
