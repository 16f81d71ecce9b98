// Module schemas (GET /v1/modules/{slug}), read once a sign-in, and what their fields allow.
import { api } from "./api.js";

const schemas = new Map();

export function forget() {
  schemas.clear();
}

export async function schemaOf(slug) {
  if (!schemas.has(slug)) {
    schemas.set(slug, api("GET", `/v1/modules/${encodeURIComponent(slug)}`));
  }
  try {
    return await schemas.get(slug);
  } catch (err) {
    schemas.delete(slug);
    throw err;
  }
}

export function typeOf(field) {
  return field.type || field.dataType;
}

/** Computed or system-managed: shown, never sent. */
const COMPUTED = new Set(["formula", "rollup", "autonumber"]);
/** Edited elsewhere (uploads, users): shown, not edited here. */
const NOT_HERE = new Set(["image", "person"]);

export function editable(field) {
  return !field.isSystem && !COMPUTED.has(typeOf(field)) && !NOT_HERE.has(typeOf(field));
}

export function options(field) {
  return ((field.config || {}).options || []).map((o) =>
    typeof o === "string" ? { value: o, label: o } : { value: o.value, label: o.label || o.value },
  );
}

export function referenceSlug(schema, field) {
  const ref = (schema.references || []).find((r) => r.sourceFieldSlug === field.key);
  return ref ? ref.slug : null;
}

export function isMulti(field) {
  const c = field.config || {};
  const type = typeOf(field);
  if (type === "reference") return ((c.reference || {}).selectionMode || "single") === "multi";
  if (type === "email") return Boolean((c.email || {}).allowMultiple);
  if (type === "phone") return Boolean((c.phone || {}).allowMultiple);
  if (type === "url") return Boolean((c.url || {}).allowMultiple);
  if (type === "address") return Boolean((c.address || {}).allowMultiple);
  return false;
}

/** The filter a field's type allows in the records table: choice, flag, range or link. */
export function filterKind(field) {
  switch (typeOf(field)) {
    case "select":
    case "multi_select":
      return "choice";
    case "boolean":
      return "flag";
    case "number":
    case "currency":
    case "rating":
    case "progress":
    case "duration":
      return "range";
    case "date":
      return "dates";
    case "reference":
      return "link";
    default:
      return null;
  }
}
