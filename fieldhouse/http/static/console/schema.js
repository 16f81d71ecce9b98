// Module schemas (GET /v1/modules/{slug}), read once a sign-in, and what their fields allow.
import { api } from "./api.js";
import { facts } from "./types.js";

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

/** Computed, system-managed or edited elsewhere (uploads, users): shown, never sent. */
export function editable(field) {
  return !field.isSystem && facts(field).editedAs !== null;
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

/** Whether the field's config makes its value a list of entries (the type says which member). */
export function isMulti(field) {
  const when = facts(field).listWhen;
  return Boolean(when) && ((field.config || {})[when.section] || {})[when.key] === when.value;
}

/** The filter a field's type allows in the records table: choice, flag, range, dates or link. */
export function filterKind(field) {
  return facts(field).filteredAs;
}
