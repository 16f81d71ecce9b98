// The module list and a module's records table: columns of its fields (picked by the reader),
// sorting, filters built from the field types, and pages with the total. Paging, filtering and
// sorting all happen on the server; the page asks only for the columns it shows.
import { api, can, query } from "./api.js";
import { errorNotice, fill, h, loading, notice } from "./dom.js";
import * as fmt from "./format.js";
import { referencePicker } from "./picker.js";
import { filterKind, options, referenceSlug, schemaOf } from "./schema.js";
import { facts } from "./types.js";

const PAGE_SIZES = [10, 25, 50, 100];
const UPDATED = { key: "updated_at", label: "Updated", type: "_updated" };

export async function modulesView(root) {
  fill(root, h("h1", {}, "Modules"), loading());
  const { modules } = await api("GET", "/v1/modules");
  const list = h("ul", { class: "cards" });
  fill(root, h("h1", {}, "Modules"), list);
  for (const m of modules) {
    const total = h("span", { class: "muted" }, "");
    list.append(h("li", {}, h("a", { href: `#/modules/${encodeURIComponent(m.slug)}` }, m.name), " ", total));
    api("GET", `/v1/modules/${encodeURIComponent(m.slug)}/records?pageSize=1`)
      .then((page) => total.replaceChildren(`${fmt.count(page.total)} records`))
      .catch(() => total.replaceChildren(""));
  }
}

function href(slug, params) {
  const text = params.toString();
  return `#/modules/${encodeURIComponent(slug)}${text ? `?${text}` : ""}`;
}

function defaultColumns(schema) {
  const view = (schema.views || []).find((v) => (v.config || {}).type === "table");
  const known = new Set(schema.fields.map((f) => f.key));
  const fromView = ((view && view.config.columns) || []).filter((k) => known.has(k));
  if (fromView.length) return fromView;
  // long text (edited as a paragraph) stays out of the default columns
  return schema.fields.filter((f) => facts(f).editedAs !== "paragraph").slice(0, 6).map((f) => f.key);
}

/** The list query's advancedFilter from the page's filters (f.<slug>=...), or null. */
export function advancedFilter(schema, params) {
  const conditions = [];
  let n = 0;
  const add = (fieldSlug, operator, operand) => conditions.push({ id: `c${n++}`, fieldSlug, operator, ...operand });
  for (const field of schema.fields) {
    const raw = params.get(`f.${field.key}`);
    if (!raw) continue;
    const kind = filterKind(field);
    if (kind === "choice") add(field.key, "in", { values: raw.split(",") });
    else if (kind === "flag") add(field.key, "eq", { value: raw === "true" });
    else if (kind === "link") add(field.key, "eq", { value: raw });
    else if (kind === "range" || kind === "dates") {
      const [low, high] = raw.split("..");
      const cast = kind === "range" ? Number : String;
      if (low) add(field.key, "gte", { value: cast(low) });
      if (high) add(field.key, "lte", { value: cast(high) });
    }
  }
  return conditions.length ? JSON.stringify({ root: { id: "root", conjunction: "AND", conditions } }) : null;
}

function filterControl(schema, field, params, go) {
  const kind = filterKind(field);
  const name = `f.${field.key}`;
  const raw = params.get(name) || "";
  const id = `filter-${field.key}`;
  const set = (text) => {
    if (text) params.set(name, text);
    else params.delete(name);
    params.delete("page");
    go();
  };
  const label = h("label", { for: id }, field.label);
  if (kind === "link") {
    const ref = referenceSlug(schema, field);
    if (!ref) return null;
    // the chosen record's name rides along in the route (n.<slug>), so it shows at once
    const chosen = raw ? [{ recordId: raw, displayName: params.get(`n.${field.key}`) || raw }] : [];
    const { node } = referencePicker({
      moduleSlug: schema.module.slug,
      referenceSlug: ref,
      id,
      label: field.label,
      chosen,
      empty: "Any",
      onchange: (e) => {
        const option = e.target.selectedOptions[0];
        if (option && option.value) params.set(`n.${field.key}`, option.textContent);
        else params.delete(`n.${field.key}`);
        set(e.target.value);
      },
    });
    return h("div", { class: "filter" }, label, node);
  }
  if (kind === "choice" || kind === "flag") {
    const choices = kind === "flag" ? [{ value: "true", label: "Yes" }, { value: "false", label: "No" }] : options(field);
    const select = h(
      "select",
      { id, name, onchange: (e) => set(e.target.value) },
      h("option", { value: "" }, "Any"),
      choices.map((o) => h("option", { value: o.value, selected: o.value === raw }, o.label)),
    );
    return h("div", { class: "filter" }, label, select);
  }
  const [low, high] = raw.split("..");
  const type = kind === "dates" ? "date" : "number";
  const change = () => {
    const a = document.getElementById(`${id}-min`).value;
    const b = document.getElementById(`${id}-max`).value;
    set(a || b ? `${a}..${b}` : "");
  };
  return h(
    "fieldset",
    { class: "filter range" },
    h("legend", {}, field.label),
    h("label", { for: `${id}-min`, class: "sr" }, `${field.label} from`),
    h("input", { id: `${id}-min`, type, step: "any", value: low || "", placeholder: "from", onchange: change }),
    h("span", { "aria-hidden": "true" }, "–"),
    h("label", { for: `${id}-max`, class: "sr" }, `${field.label} to`),
    h("input", { id: `${id}-max`, type, step: "any", value: high || "", placeholder: "to", onchange: change }),
  );
}

/** Which of the table's panels (columns, filters) are open: they stay so as the table redraws. */
const opened = new Set();

function remembered(name, details, also = false) {
  details.open = also || opened.has(name);
  // opening it here fires one toggle event too: only the reader's own toggles are remembered
  let mine = !details.open;
  details.addEventListener("toggle", () => {
    if (!mine) {
      mine = true;
      return;
    }
    if (details.open) opened.add(name);
    else opened.delete(name);
  });
  return details;
}

function columnPicker(schema, shown, params, go) {
  const boxes = [...schema.fields, UPDATED].map((f) =>
    h(
      "label",
      { class: "check" },
      h("input", {
        type: "checkbox",
        id: `col-${f.key}`,
        checked: shown.includes(f.key),
        onchange: () => {
          const picked = [...schema.fields, UPDATED]
            .filter((g) => document.getElementById(`col-${g.key}`).checked)
            .map((g) => g.key);
          params.set("cols", picked.join(",") || "_");
          go();
        },
      }),
      f.label,
    ),
  );
  const menu = remembered("columns", h("details", { class: "menu" }, h("summary", {}, "Columns"), h("div", { class: "menu-body" }, boxes)));
  menu.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
  return menu;
}

export async function tableView(root, slug, params) {
  fill(root, loading());
  const schema = await schemaOf(slug);
  const byKey = new Map([...schema.fields, UPDATED].map((f) => [f.key, f]));
  const shown = params.has("cols")
    ? params.get("cols").split(",").filter((k) => byKey.has(k))
    : defaultColumns(schema);
  const page = Math.max(1, Number(params.get("page")) || 1);
  const size = PAGE_SIZES.includes(Number(params.get("size"))) ? Number(params.get("size")) : 25;
  const sort = params.get("sort") || "";
  const dir = params.get("dir") === "desc" ? "desc" : "asc";
  const go = () => {
    location.hash = href(slug, params);
  };
  const wanted = shown.filter((k) => k !== UPDATED.key);
  const started = performance.now();
  let result;
  let failure = null;
  try {
    result = await api(
      "GET",
      `/v1/modules/${encodeURIComponent(slug)}/records${query({
        page,
        pageSize: size,
        search: params.get("q") || "",
        sortField: sort,
        sortDirection: sort ? dir : "",
        advancedFilter: advancedFilter(schema, params),
        fields: (wanted.length ? wanted : [schema.fields[0].key]).join(","),
      })}`,
    );
  } catch (err) {
    if (err.status === 401 || err.status === 403 || err.status === 404) throw err;
    failure = err;
    result = { records: [], total: 0, page, pageSize: size };
  }
  const pages = Math.max(1, Math.ceil(result.total / size));
  const filters = schema.fields.map((f) => (filterKind(f) ? filterControl(schema, f, params, go) : null)).filter(Boolean);
  const active = [...params.keys()].some((k) => k.startsWith("f.")) || params.get("q");
  const searchBox = h("input", { id: "records-search", type: "search", name: "q", value: params.get("q") || "", placeholder: `Search ${schema.module.name.toLowerCase()}` });
  const header = h(
    "div",
    { class: "title-row" },
    h("h1", {}, schema.module.name),
    h("span", { class: "muted", id: "records-total" }, `${fmt.count(result.total)} ${result.total === 1 ? "record" : "records"}`),
    can("records:write")
      ? h("a", { class: "button primary", href: `#/records/${encodeURIComponent(slug)}/new`, id: "new-record" }, "New record")
      : null,
  );
  const toolbar = h(
    "div",
    { class: "toolbar" },
    h(
      "form",
      { role: "search", onsubmit: (e) => { e.preventDefault(); params.set("q", searchBox.value); params.delete("page"); go(); } },
      h("label", { for: "records-search", class: "sr" }, "Search in this module"),
      searchBox,
      h("button", { type: "submit" }, "Search"),
    ),
    columnPicker(schema, shown, params, go),
    h("label", { for: "page-size" }, "Rows"),
    h(
      "select",
      { id: "page-size", onchange: (e) => { params.set("size", e.target.value); params.delete("page"); go(); } },
      PAGE_SIZES.map((n) => h("option", { value: n, selected: n === size }, n)),
    ),
    active ? h("a", { href: href(slug, new URLSearchParams(params.has("cols") ? { cols: params.get("cols") } : {})), id: "clear-filters" }, "Clear filters") : null,
  );
  const filterPanel = filters.length
    ? remembered("filters", h("details", { class: "filters", open: active ? true : undefined }, h("summary", {}, "Filters"), h("div", { class: "filter-grid" }, filters)), Boolean(active))
    : null;
  const headCell = (key, label) => {
    const on = sort === key;
    const ariaSort = on ? (dir === "asc" ? "ascending" : "descending") : undefined;
    return h(
      "th",
      { scope: "col", "aria-sort": ariaSort },
      h(
        "button",
        {
          class: "sort",
          type: "button",
          dataset: { sort: key },
          onclick: () => {
            params.set("dir", on && dir === "asc" ? "desc" : "asc");
            params.set("sort", key);
            go();
          },
        },
        label,
        h("span", { "aria-hidden": "true" }, on ? (dir === "asc" ? " ▲" : " ▼") : ""),
      ),
    );
  };
  const cell = (record, key) => {
    if (key === UPDATED.key) return fmt.moment(record.updatedDateTime);
    return fmt.value(schema, byKey.get(key), (record.fields || {})[key]);
  };
  const table = h(
    "table",
    { class: "records", id: "records-table", dataset: { total: result.total } },
    h("caption", { class: "sr" }, `${schema.module.name}, page ${page} of ${pages}`),
    h("thead", {}, h("tr", {}, headCell("displayName", "Name"), shown.map((k) => headCell(k, byKey.get(k).label)))),
    h(
      "tbody",
      {},
      result.records.map((r) =>
        h(
          "tr",
          { dataset: { recordId: r.recordId } },
          h("th", { scope: "row" }, h("a", { href: fmt.recordHref(slug, r.recordId) }, r.displayName)),
          shown.map((k) => h("td", { dataset: { field: k } }, cell(r, k))),
        ),
      ),
    ),
  );
  const first = result.total ? (page - 1) * size + 1 : 0;
  const last = Math.min(result.total, page * size);
  const pageLink = (to, text, id) => {
    if (to < 1 || to > pages || to === page) return h("span", { class: "button disabled", "aria-disabled": "true" }, text);
    const next = new URLSearchParams(params);
    next.set("page", String(to));
    return h("a", { class: "button", href: href(slug, next), id }, text);
  };
  const pager = h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    pageLink(page - 1, "‹ Previous", "page-prev"),
    h("span", { id: "page-info" }, `${fmt.count(first)}–${fmt.count(last)} of ${fmt.count(result.total)} · page ${fmt.count(page)} of ${fmt.count(pages)}`),
    pageLink(page + 1, "Next ›", "page-next"),
  );
  fill(
    root,
    header,
    toolbar,
    filterPanel,
    failure ? errorNotice(failure) : null,
    result.records.length ? h("div", { class: "scroll" }, table) : notice(active ? "No records match these filters." : "No records yet."),
    pager,
  );
  root.dataset.loadedMs = String(Math.round(performance.now() - started));
}
