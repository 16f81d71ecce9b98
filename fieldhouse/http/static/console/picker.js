// Choosing a reference's record(s): a select of the picker's candidates (GET .../picker), with
// a search box that asks the server again as you type, so a module of 100,000 records is never
// listed in the page.
import { api } from "./api.js";
import { h } from "./dom.js";

const LIMIT = 50;
const PAUSE_MS = 250;

/**
 * A select (multiple for a multi reference) of ``chosen`` [{recordId, displayName}] and the
 * candidates of ``moduleSlug``'s reference ``referenceSlug``, with a search box before it.
 * ``empty`` labels the no-choice option of a single select. Returns {node, select}.
 */
export function referencePicker({ moduleSlug, referenceSlug, id, label, chosen = [], multi = false, empty = "—", onchange }) {
  const select = h(
    "select",
    { id, name: id, multiple: multi, onchange },
    multi ? null : h("option", { value: "" }, empty),
    chosen.map((r) => h("option", { value: r.recordId, selected: true }, r.displayName || r.recordId)),
  );
  const path = `/v1/modules/${encodeURIComponent(moduleSlug)}/references/${encodeURIComponent(referenceSlug)}/picker`;
  let asked = 0;
  const load = async (text) => {
    const turn = ++asked;
    const q = new URLSearchParams({ limit: String(LIMIT) });
    if (text) q.set("search", text);
    let found;
    try {
      found = await api("GET", `${path}?${q}`);
    } catch {
      select.setAttribute("aria-busy", "false");
      return;
    }
    if (turn !== asked) return;
    // keep what is chosen; replace the candidates
    for (const option of [...select.options]) {
      if (option.value && !option.selected) option.remove();
    }
    const kept = new Set([...select.options].map((o) => o.value));
    for (const item of found.items) {
      if (!kept.has(item.recordId)) select.append(h("option", { value: item.recordId }, item.displayName));
    }
    select.setAttribute("aria-busy", "false");
  };
  let timer = null;
  const search = h("input", {
    type: "search",
    id: `${id}-search`,
    class: "picker-search",
    placeholder: "Find…",
    "aria-label": `Find ${label}`,
    "aria-controls": id,
    oninput: (e) => {
      clearTimeout(timer);
      select.setAttribute("aria-busy", "true");
      timer = setTimeout(() => load(e.target.value.trim()), PAUSE_MS);
    },
    onkeydown: (e) => {
      if (e.key === "Enter") e.preventDefault();
    },
  });
  load("");
  return { node: h("span", { class: "picker" }, search, select), select };
}
