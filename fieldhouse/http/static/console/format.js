// Values shown the reader's way: dates and numbers through Intl in the browser's language,
// every field type rendered as what it is (references as links to their records).
import { h } from "./dom.js";
import { facts } from "./types.js";

const LOCALE = navigator.language || "en";
const numbers = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 10 });
const dates = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeZone: "UTC" });
const moments = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeStyle: "short" });
const times = new Intl.DateTimeFormat(LOCALE, { timeStyle: "short", timeZone: "UTC" });
const scores = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
const percents = new Intl.NumberFormat(LOCALE, { style: "percent", maximumFractionDigits: 0 });

export function number(value) {
  return typeof value === "number" ? numbers.format(value) : String(value ?? "");
}

export function score(value) {
  return typeof value === "number" ? scores.format(value) : "";
}

export function count(value) {
  return numbers.format(value);
}

/** A calendar date (YYYY-MM-DD) as the reader writes it; the day never shifts by time zone. */
export function date(text) {
  if (!text) return "";
  const d = new Date(`${String(text).slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? String(text) : dates.format(d);
}

/** An instant (ISO 8601 with its zone) in the reader's zone and language. */
export function moment(text) {
  if (!text) return "";
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? String(text) : moments.format(d);
}

function time(text) {
  const d = new Date(`1970-01-01T${text}Z`);
  return Number.isNaN(d.getTime()) ? String(text) : times.format(d);
}

export function money(amount, currency) {
  try {
    return new Intl.NumberFormat(LOCALE, { style: "currency", currency }).format(amount);
  } catch {
    return `${number(amount)} ${currency || ""}`.trim();
  }
}

function duration(seconds) {
  if (typeof seconds !== "number") return String(seconds);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.round((seconds % 3600) / 60);
  return hours ? `${number(hours)} h ${minutes} min` : `${minutes} min`;
}

/** Where a record's page is in the console. */
export function recordHref(moduleSlug, recordId) {
  return `#/records/${encodeURIComponent(moduleSlug)}/${encodeURIComponent(recordId)}`;
}

/** The module a reference field points into (from the schema's references, else its config). */
export function targetModule(schema, field) {
  const ref = (schema.references || []).find((r) => r.sourceFieldSlug === field.key);
  if (ref && ref.target && ref.target.moduleSlug) return ref.target.moduleSlug;
  const allowed = ((field.config || {}).reference || {}).allowedModuleSlugs || [];
  return allowed[0] || null;
}

export function optionLabel(field, value) {
  const options = (field.config || {}).options || [];
  for (const option of options) {
    if (typeof option === "string" && option === value) return option;
    if (option && option.value === value) return option.label || option.value;
  }
  return String(value);
}

function entries(value) {
  return (Array.isArray(value) ? value : [value]).filter((v) => v !== null && v !== undefined);
}

function entryText(entry) {
  if (entry && typeof entry === "object" && "value" in entry) return entryText(entry.value);
  if (entry && typeof entry === "object") return addressText(entry);
  return String(entry);
}

function addressText(a) {
  const parts = [a.street, a.street2, a.city, [a.state, a.zip].filter(Boolean).join(" "), a.country];
  return parts.filter(Boolean).join(", ");
}

function safeUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function chip(text, kind = "") {
  return h("span", { class: `chip ${kind}`.trim() }, text);
}

/** A field's value as page content (a Node or text); empty values as an empty string. */
export function value(schema, field, v) {
  if (v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0)) return "";
  const shown = facts(field).shownAs;
  switch (shown) {
    case "amount":
      return number(v);
    case "percent":
      return typeof v === "number" ? percents.format(v / 100) : String(v);
    case "money":
      return typeof v === "object" ? money(v.amount, v.currency) : number(v);
    case "day":
      return date(v);
    case "clock_time":
      return time(v);
    case "days":
      return `${date(v.start)} – ${date(v.end)}`;
    case "hours":
      return duration(v);
    case "yes_no":
      return v ? "Yes" : "No";
    case "option":
      return chip(optionLabel(field, v));
    case "options":
      return entries(v).map((one) => chip(optionLabel(field, one)));
    case "record_link":
    case "parent_link": {
      const target = shown === "parent_link" ? schema.module.slug : targetModule(schema, field);
      return entries(v).map((ref) =>
        target && ref.recordId
          ? h("a", { href: recordHref(target, ref.recordId), class: "ref" }, ref.displayName || ref.recordId)
          : chip(ref.displayName || ref.recordId || ""),
      );
    }
    case "users":
      return entries(v).map((p) => chip(p.displayName || p.email || p.userId || ""));
    case "mail_links":
      return entries(v).map((e) => h("a", { href: `mailto:${entryText(e)}`, class: "ref" }, entryText(e)));
    case "web_links":
      return entries(v).map((e) => {
        const href = safeUrl(entryText(e));
        return href ? h("a", { href, rel: "noopener noreferrer", target: "_blank" }, entryText(e)) : entryText(e);
      });
    case "lines":
      return entries(v).map((e) => h("span", { class: "line" }, entryText(e)));
    case "formula_result":
      if (typeof v === "number") {
        return number(v);
      }
      return typeof v === "boolean" ? (v ? "Yes" : "No") : String(v);
    case "amount_or_text":
      return typeof v === "number" ? number(v) : String(v);
    case "image_names":
      return entries(v).map((img) => chip(typeof img === "object" ? img.name || img.url || "image" : "image"));
    case "html_as_text":
    case "prose": {
      // rich text is shown as its text: stored HTML is never put into the console's page
      const text = shown === "html_as_text" ? new DOMParser().parseFromString(String(v), "text/html").body.textContent : String(v);
      return h("span", { class: "prose" }, text);
    }
    default:
      if (typeof v === "object") return JSON.stringify(v);
      return String(v);
  }
}
