// A record's page (every field rendered by type, references as links, its activity timeline)
// and the form that creates or edits one, with the API's validation issues by their fields.
import { api, can } from "./api.js";
import { errorNotice, fill, h, loading, notice } from "./dom.js";
import { referencePicker } from "./picker.js";
import * as fmt from "./format.js";
import { editable, isMulti, options, referenceSlug, schemaOf, typeOf } from "./schema.js";
import { facts } from "./types.js";

const base = (slug) => `/v1/modules/${encodeURIComponent(slug)}/records`;

function humanise(type) {
  return type.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

function timeline(schema, groups) {
  const labels = new Map(schema.fields.map((f) => [f.key, f.label]));
  if (!groups.length) return notice("No activity yet.");
  return h(
    "ol",
    { class: "timeline", id: "record-activity" },
    groups.map((g) => {
      const changed = new Set();
      for (const one of g.activities || [g]) {
        for (const key of ((one.data || {}).fields || [])) changed.add(labels.get(key) || key);
      }
      return h(
        "li",
        {},
        h("time", { datetime: g.startedDateTime || g.createdDateTime }, fmt.moment(g.startedDateTime || g.createdDateTime)),
        " ",
        h("strong", {}, humanise(g.activityType)),
        g.count > 1 ? ` ×${fmt.count(g.count)}` : "",
        changed.size ? h("span", { class: "muted" }, ` · ${[...changed].join(", ")}`) : "",
      );
    }),
  );
}

export async function recordView(root, slug, id) {
  fill(root, loading());
  const schema = await schemaOf(slug);
  const [{ record }, activity] = await Promise.all([
    api("GET", `${base(slug)}/${encodeURIComponent(id)}`),
    api("GET", `${base(slug)}/${encodeURIComponent(id)}/activity?limit=50`).catch(() => ({ activities: [] })),
  ]);
  const status = h("div", { id: "record-status" });
  const writer = can("records:write");
  const confirm = h("div", { class: "confirm", hidden: true, id: "delete-confirm" });
  const askDelete = () => {
    fill(
      confirm,
      h("p", {}, `Delete “${record.displayName}”? It is no longer listed or found.`),
      h("button", { type: "button", class: "danger", id: "delete-yes", onclick: doDelete }, "Delete"),
      h("button", { type: "button", onclick: () => { confirm.hidden = true; } }, "Cancel"),
    );
    confirm.hidden = false;
    confirm.querySelector("button").focus();
  };
  async function doDelete() {
    try {
      await api("DELETE", `${base(slug)}/${encodeURIComponent(id)}`);
      location.hash = `#/modules/${encodeURIComponent(slug)}`;
    } catch (err) {
      confirm.hidden = true;
      fill(status, errorNotice(err));
    }
  }
  const empty = h("span", { class: "muted", "aria-label": "empty" }, "—");
  fill(
    root,
    h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: `#/modules/${encodeURIComponent(slug)}` }, schema.module.name), " / "),
    h(
      "div",
      { class: "title-row" },
      h("h1", { id: "record-title" }, record.displayName),
      writer ? h("a", { class: "button primary", href: `#/records/${encodeURIComponent(slug)}/${encodeURIComponent(id)}/edit`, id: "edit-record" }, "Edit") : null,
      writer ? h("button", { type: "button", class: "danger", id: "delete-record", onclick: askDelete }, "Delete") : null,
    ),
    status,
    confirm,
    h(
      "dl",
      { class: "fields", id: "record-fields" },
      schema.fields.map((f) => {
        const shown = fmt.value(schema, f, (record.fields || {})[f.key]);
        return h("div", { class: "field-row", dataset: { field: f.key } }, h("dt", {}, f.label), h("dd", {}, shown === "" ? empty.cloneNode(true) : shown));
      }),
    ),
    h(
      "p",
      { class: "muted" },
      `Created ${fmt.moment(record.createdDateTime)} by ${record.createdByDisplayName || "—"} · updated ${fmt.moment(record.updatedDateTime)} by ${record.updatedByDisplayName || "—"}`,
    ),
    h("h2", {}, "Activity"),
    timeline(schema, activity.activities || []),
  );
}

// --- the form

function entriesOf(v) {
  if (v === null || v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function textOf(v) {
  return entriesOf(v).map((e) => (e && typeof e === "object" ? e.value ?? "" : e)).join(", ");
}

/** One field's control: {node, read}; read() is the value to send (null clears it). */
function control(schema, field, current, id) {
  const kind = facts(field);
  const c = field.config || {};
  const input = (attrs) => h("input", { id, name: field.key, ...attrs });
  switch (kind.editedAs) {
    case "paragraph": {
      const node = h("textarea", { id, name: field.key, rows: c.rows || 4 }, current ?? "");
      return { node, read: () => node.value || null };
    }
    case "amount": {
      const node = input({ type: "number", step: "any", value: current ?? "" });
      return { node, read: () => (node.value === "" ? null : Number(node.value)) };
    }
    case "money": {
      const cfg = c.currency || {};
      const codes = cfg.allowedCurrencies || [cfg.defaultCurrency || "USD"];
      const amount = input({ type: "number", step: "any", value: current ? current.amount : "" });
      const code = h("select", { id: `${id}-currency`, "aria-label": `${field.label} currency` }, codes.map((k) => h("option", { value: k, selected: current && current.currency === k }, k)));
      return { node: h("span", { class: "pair" }, amount, code), read: () => (amount.value === "" ? null : { amount: Number(amount.value), currency: code.value }) };
    }
    case "day": {
      const node = input({ type: "date", value: current || "" });
      return { node, read: () => node.value || null };
    }
    case "clock_time": {
      const node = input({ type: "time", value: current || "" });
      return { node, read: () => node.value || null };
    }
    case "days": {
      const start = input({ type: "date", value: (current || {}).start || "" });
      const end = h("input", { id: `${id}-end`, type: "date", value: (current || {}).end || "", "aria-label": `${field.label} end` });
      return { node: h("span", { class: "pair" }, start, end), read: () => (start.value || end.value ? { start: start.value || null, end: end.value || null } : null) };
    }
    case "checkbox": {
      const node = input({ type: "checkbox", checked: Boolean(current) });
      return { node, read: () => node.checked };
    }
    case "option": {
      const node = h("select", { id, name: field.key }, h("option", { value: "" }, "—"), options(field).map((o) => h("option", { value: o.value, selected: o.value === current }, o.label)));
      return { node, read: () => node.value || null };
    }
    case "options": {
      const chosen = new Set(entriesOf(current));
      const boxes = options(field).map((o) => h("label", { class: "check" }, h("input", { type: "checkbox", value: o.value, checked: chosen.has(o.value) }), o.label));
      const node = h("fieldset", { id, class: "choices" }, h("legend", { class: "sr" }, field.label), boxes);
      return { node, read: () => [...node.querySelectorAll("input:checked")].map((b) => b.value) };
    }
    case "record_picker": {
      const multi = isMulti(field);
      const ref = referenceSlug(schema, field);
      if (!ref) return null;
      const { node, select } = referencePicker({
        moduleSlug: schema.module.slug,
        referenceSlug: ref,
        id,
        label: field.label,
        chosen: entriesOf(current),
        multi,
      });
      return {
        node,
        read: () => {
          const ids = [...select.selectedOptions].map((o) => o.value).filter(Boolean);
          return multi ? ids.map((recordId) => ({ recordId })) : ids[0] ? { recordId: ids[0] } : null;
        },
      };
    }
    case "address_parts": {
      if (isMulti(field)) break;
      const a = current || {};
      const parts = ["street", "city", "state", "zip", "country"].map((k) =>
        h("input", { id: k === "street" ? id : `${id}-${k}`, "aria-label": `${field.label} ${k}`, placeholder: k, value: a[k] || "" }),
      );
      return {
        node: h("span", { class: "address" }, parts),
        read: () => {
          const value = Object.fromEntries(parts.map((p, i) => [["street", "city", "state", "zip", "country"][i], p.value]));
          return Object.values(value).some(Boolean) ? value : null;
        },
      };
    }
    case "entries": {
      if (!isMulti(field)) {
        const node = input({ type: "text", value: textOf(current), inputmode: kind.inputMode });
        return { node, read: () => node.value.trim() || null };
      }
      const old = entriesOf(current);
      const node = input({ type: "text", value: textOf(current), "aria-describedby": `${id}-hint` });
      const defaultType = (c[typeOf(field)] || {}).defaultType || null;
      return {
        node: h("span", {}, node, h("small", { id: `${id}-hint`, class: "muted" }, " several: separate with commas")),
        read: () =>
          node.value
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
            .map((value, i) => {
              const had = old.find((e) => e && e.value === value);
              return had ? { ...had, isPrimary: i === 0 } : { value, label: defaultType, isPrimary: i === 0 };
            }),
      };
    }
    default:
      break;
  }
  if (current !== null && typeof current === "object") return null;
  const node = input({ type: "text", value: current ?? "" });
  return { node, read: () => node.value || null };
}

/** Put each issue next to the field its path names; the rest above the form. */
export function placeIssues(form, err) {
  for (const el of form.querySelectorAll(".field-error")) el.replaceChildren();
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  const loose = [];
  for (const issue of err.issues || []) {
    const path = issue.path || [];
    const key = path[0] === "fields" ? path[1] : path[0];
    const slot = form.querySelector(`.field-error[data-for="${CSS.escape(String(key))}"]`);
    if (slot) {
      slot.append(h("span", {}, issue.message));
      const target = form.querySelector(`[name="${CSS.escape(String(key))}"]`);
      if (target) target.setAttribute("aria-invalid", "true");
    } else {
      loose.push(issue.message);
    }
  }
  return loose;
}

export async function formView(root, slug, id) {
  fill(root, loading());
  const schema = await schemaOf(slug);
  const record = id ? (await api("GET", `${base(slug)}/${encodeURIComponent(id)}`)).record : null;
  const values = record ? record.fields || {} : {};
  const changed = new Set();
  const controls = [];
  const status = h("div", { id: "form-status" });
  const nameInput = h("input", { id: "field-displayName", name: "displayName", required: true, maxlength: 500, value: record ? record.displayName : "" });
  const rows = [
    h(
      "div",
      { class: "form-row", dataset: { field: "displayName" } },
      h("label", { for: "field-displayName" }, "Display name"),
      nameInput,
      h("div", { class: "field-error", "data-for": "displayName", role: "alert" }),
    ),
  ];
  for (const field of schema.fields) {
    if (!editable(field)) continue;
    const fieldId = `field-${field.key}`;
    const made = control(schema, field, values[field.key] ?? null, fieldId);
    if (!made) continue;
    controls.push([field, made]);
    rows.push(
      h(
        "div",
        { class: "form-row", dataset: { field: field.key }, oninput: () => changed.add(field.key), onchange: () => changed.add(field.key) },
        h("label", { for: fieldId }, field.label, field.required ? h("span", { class: "req", "aria-label": "required" }, " *") : null),
        made.node,
        h("div", { class: "field-error", "data-for": field.key, role: "alert" }),
      ),
    );
  }
  const save = h("button", { type: "submit", class: "primary", id: "save-record" }, record ? "Save" : "Create");
  const form = h("form", { class: "record-form", novalidate: true, id: "record-form" }, rows, h("div", { class: "actions" }, save, h("a", { class: "button", href: record ? fmt.recordHref(slug, id) : `#/modules/${encodeURIComponent(slug)}` }, "Cancel")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = {};
    for (const [field, made] of controls) {
      if (record && !changed.has(field.key)) continue;
      const v = made.read();
      if (!record && (v === null || (Array.isArray(v) && v.length === 0))) continue;
      fields[field.key] = v;
    }
    const body = { fields };
    if (!record || nameInput.value !== record.displayName) body.displayName = nameInput.value;
    save.disabled = true;
    fill(status);
    try {
      const done = record
        ? await api("PATCH", `${base(slug)}/${encodeURIComponent(id)}`, body)
        : await api("POST", base(slug), body);
      location.hash = fmt.recordHref(slug, done.record.recordId);
    } catch (err) {
      save.disabled = false;
      const loose = placeIssues(form, err);
      fill(status, errorNotice(err), loose.length ? h("ul", { class: "issues" }, loose.map((m) => h("li", {}, m))) : null);
      const first = form.querySelector("[aria-invalid]");
      if (first) first.focus();
    }
  });
  fill(
    root,
    h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: `#/modules/${encodeURIComponent(slug)}` }, schema.module.name), " / ", record ? h("a", { href: fmt.recordHref(slug, id) }, record.displayName) : null),
    h("h1", {}, record ? `Edit ${record.displayName}` : `New ${schema.module.name.replace(/s$/, "").toLowerCase()}`),
    can("records:write") ? null : notice("This key cannot change records (no records:write); saving will be refused.", "warn"),
    status,
    form,
  );
}
