// Building the page: elements from plain data, text always as text (never parsed as HTML).

/** An element: h("a", {href: "#/", class: "x", onclick: fn}, "text", child, [more]). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (name === "value" || name === "checked" || name === "selected") {
      el[name] = value;
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace what ``el`` holds. */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** A status line that screen readers announce. */
export function notice(text, kind = "info") {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

/** An error from the API (or the network) as a notice: its status, code and message. */
export function errorNotice(err) {
  if (err && err.status) {
    return notice(`${err.status} ${err.code}: ${err.message}`, "error");
  }
  return notice(String((err && err.message) || err), "error");
}

export function loading() {
  return h("p", { class: "loading", role: "status" }, "Loading…");
}
