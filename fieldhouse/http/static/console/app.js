// The console: sign-in, the shell and hash routing (#/modules/contacts, #/records/<module>/<id>,
// #/search?q=, #/approvals, #/chat, #/runs, #/settings). Every view calls the public API.
import { EXPIRED, can, isAdmin, me, onSignOut, restore, signIn, signOut, signedIn } from "./api.js";
import { errorNotice, fill, h, notice } from "./dom.js";
import { approvalsView } from "./approvals.js";
import { chatView, runsView } from "./agent.js";
import { formView, recordView } from "./record.js";
import { forget } from "./schema.js";
import { searchView } from "./search.js";
import { settingsView } from "./settings.js";
import { modulesView, tableView } from "./table.js";

const app = document.getElementById("app");
let shown = 0;

function signInView(message) {
  const key = h("input", { id: "api-key", type: "password", autocomplete: "off", spellcheck: "false", required: true, placeholder: "sk_live_… or a session token" });
  const keep = h("input", { id: "keep-key", type: "checkbox", checked: true });
  const status = h("div", { id: "sign-in-status" }, message ? notice(message, "warn") : null);
  const button = h("button", { type: "submit", class: "primary", id: "sign-in" }, "Sign in");
  const form = h(
    "form",
    {
      class: "sign-in card",
      onsubmit: async (e) => {
        e.preventDefault();
        button.disabled = true;
        try {
          await signIn(key.value, keep.checked);
          if (!location.hash || location.hash === "#/sign-in") location.hash = "#/modules";
          else route();
        } catch (err) {
          button.disabled = false;
          fill(status, err.status === 401 ? notice("That key or token is not valid (401).", "error") : errorNotice(err));
          key.focus();
        }
      },
    },
    h("h1", {}, "Fieldhouse console"),
    h("p", {}, "Sign in with an API key or a session token. It is sent only to this server, in the Authorization header."),
    status,
    h("label", { for: "api-key" }, "API key or session token"),
    key,
    h("label", { class: "check" }, keep, "Stay signed in in this tab (sessionStorage; closing the tab forgets it)"),
    button,
  );
  document.title = "Sign in · Fieldhouse";
  fill(app, h("main", { id: "main", class: "narrow" }, form));
  key.focus();
}

function shell(who) {
  const link = (href, text, id) => h("a", { href, id }, text);
  const nav = h(
    "nav",
    { class: "top", "aria-label": "Main" },
    link("#/modules", "Modules", "nav-modules"),
    link("#/search", "Search", "nav-search"),
    isAdmin() ? link("#/approvals", "Approvals", "nav-approvals") : null,
    can("agents:write") ? link("#/chat", "Agent", "nav-chat") : null,
    can("agents:write") ? link("#/runs", "Runs", "nav-runs") : null,
    link("#/settings", "Settings", "nav-settings"),
  );
  const header = h(
    "header",
    { class: "bar" },
    h("a", { class: "brand", href: "#/modules" }, "Fieldhouse"),
    nav,
    h("span", { class: "who", id: "who", title: (who.scopes || []).join(" ") }, who.roleSlugs.join(", ")),
    h("button", { type: "button", id: "sign-out", onclick: () => signOut() }, "Sign out"),
  );
  const main = h("main", { id: "main", tabindex: "-1" });
  fill(app, h("a", { class: "skip", href: "#main", onclick: (e) => { e.preventDefault(); main.focus(); } }, "Skip to content"), header, main);
  return main;
}

function parse() {
  const raw = location.hash.replace(/^#/, "") || "/modules";
  const [path, search] = raw.split("?");
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search || "") };
}

function pick(parts, params) {
  const [head, a, b, c] = parts;
  if (head === "modules" && a) return [`${a}`, (root) => tableView(root, a, params)];
  if (head === "records" && a && b === "new") return ["New record", (root) => formView(root, a, null)];
  if (head === "records" && a && b && c === "edit") return ["Edit", (root) => formView(root, a, b)];
  if (head === "records" && a && b) return ["Record", (root) => recordView(root, a, b)];
  if (head === "search") return ["Search", (root) => searchView(root, params)];
  if (head === "approvals") return ["Approvals", (root) => approvalsView(root, params)];
  if (head === "chat") return ["Agent", (root) => chatView(root)];
  if (head === "runs") return ["Runs", (root) => runsView(root, params)];
  if (head === "settings") return ["Settings", (root) => settingsView(root, params)];
  return ["Modules", (root) => modulesView(root)];
}

async function route() {
  if (!signedIn()) {
    signInView();
    return;
  }
  const turn = ++shown;
  let who;
  try {
    who = await me();
  } catch (err) {
    if (turn !== shown) return;
    if (err.status === 401) {
      signOut(EXPIRED);
      return;
    }
    // the server did not answer: keep the key, offer to try again
    fill(app, h("main", { id: "main", class: "narrow" }, errorNotice(err), h("button", { type: "button", id: "retry", onclick: route }, "Try again")));
    return;
  }
  if (turn !== shown) return;
  let main = document.getElementById("main");
  if (!main || !document.getElementById("sign-out")) main = shell(who);
  const focused = document.activeElement && document.activeElement.id;
  const { parts, params } = parse();
  const [title, render] = pick(parts, params);
  for (const a of document.querySelectorAll("nav.top a")) {
    if (`#/${parts[0] || "modules"}` === a.getAttribute("href")) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.title = `${title} · Fieldhouse`;
  // each route renders into its own element: a slower earlier one writes into a detached one
  const view = h("div", { class: "view", id: "view", dataset: { route: parts[0] || "modules", turn } });
  main.replaceChildren(view);
  try {
    await render(view);
    // since the page's navigation began: a benchmark reads the first view's load time here
    view.dataset.readyAt = String(Math.round(performance.now()));
    view.dataset.ready = "true";
  } catch (err) {
    if (turn !== shown || !signedIn()) return;
    fill(view, h("h1", {}, err.status === 404 ? "Not found" : title), errorNotice(err));
    view.dataset.ready = "true";
  }
  if (turn !== shown) return;
  const again = focused && document.getElementById(focused);
  // the control that changed the view keeps the focus (and the scroll); else start at the top
  if (again && view.contains(again)) again.focus();
  else window.scrollTo(0, 0);
}

onSignOut((reason) => {
  forget();
  shown++;
  signInView(reason);
});
window.addEventListener("hashchange", route);
restore();
route();
