// The public API, called with the signed-in credential in the Authorization header. The key
// lives in this module's memory and, if the person asked, in this tab's sessionStorage (gone
// when the tab closes); never in localStorage, which outlives the tab.

const STORED = "fieldhouse.console.key";
let credential = null;
let identity = null;
const listeners = new Set();
export const EXPIRED = "The key or session is no longer valid (401): sign in again.";

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "error";
    this.issues = error.issues || [];
    this.data = error.data || null;
  }
}

export function restore() {
  credential = sessionStorage.getItem(STORED);
  return credential !== null;
}

/** Check the key with GET /v1/me; keep it (in the tab too when ``keepInTab``) if it works. */
export async function signIn(key, keepInTab) {
  credential = key.trim();
  try {
    identity = await api("GET", "/v1/me");
  } catch (err) {
    credential = null;
    throw err;
  }
  if (keepInTab) sessionStorage.setItem(STORED, credential);
  else sessionStorage.removeItem(STORED);
  return identity;
}

/** Forget the credential (memory and tab); ``reason`` is shown on the sign-in page. */
export function signOut(reason = "Signed out.") {
  credential = null;
  identity = null;
  sessionStorage.removeItem(STORED);
  for (const fn of listeners) fn(reason);
}

export function onSignOut(fn) {
  listeners.add(fn);
}

export function signedIn() {
  return credential !== null;
}

/** Who is signed in (GET /v1/me), read once a sign-in. */
export async function me() {
  if (identity === null) identity = await api("GET", "/v1/me");
  return identity;
}

export function can(scope) {
  return identity !== null && (identity.scopes || []).includes(scope);
}

export function isAdmin() {
  return identity !== null && identity.roleSlugs.some((r) => r === "owner" || r === "admin");
}

/** A query string from an object; arrays repeat the key, empty values are left out. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value === undefined || value === null || value === "") continue;
    for (const one of Array.isArray(value) ? value : [value]) q.append(name, String(one));
  }
  const text = q.toString();
  return text ? `?${text}` : "";
}

function request(method, path, body, extra) {
  const headers = { Authorization: `Bearer ${credential}`, ...extra };
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(path, init);
}

/** Call the API; the parsed JSON answer, or an ApiError (a 401 signs out). */
export async function api(method, path, body) {
  if (credential === null) throw new ApiError(401, { error: { message: "Not signed in" } });
  const response = await request(method, path, body);
  if (response.status === 204) return null;
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { error: { message: text.slice(0, 200) } };
  }
  if (!response.ok) {
    const err = new ApiError(response.status, parsed);
    if (response.status === 401 && path !== "/v1/me") signOut(EXPIRED);
    throw err;
  }
  return parsed;
}

/**
 * POST and read a Server-Sent Events answer: ``onEvent(name, data)`` per event as it comes.
 * ``signal`` aborts it (the server then aborts the run).
 */
export async function stream(path, body, onEvent, signal) {
  const headers = { Authorization: `Bearer ${credential}`, Accept: "text/event-stream" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    cache: "no-store",
  });
  if (!response.ok) {
    let parsed = null;
    try {
      parsed = await response.json();
    } catch {
      parsed = null;
    }
    throw new ApiError(response.status, parsed);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}
