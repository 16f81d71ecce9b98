// What the server says about each field type: how its values are shown, edited and filtered.
// field-types.js is written by the server from its field-type registry, so a new type needs no
// edit here; the console never names a type.
import FIELD_TYPES from "./field-types.js";

/** A type this console's server does not list: shown as text, edited as a line. */
const UNKNOWN = { shownAs: "plain", editedAs: "line", filteredAs: null, inputMode: null, listWhen: null };

/** The facts of a field's type: {shownAs, editedAs, filteredAs, inputMode, listWhen}. */
export function facts(field) {
  return FIELD_TYPES[field.type || field.dataType] || UNKNOWN;
}
