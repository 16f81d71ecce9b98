// Workspace settings a person needs: who this key is and the workspace's API keys, webhooks with
// their delivery log, and the workspace's activity feed.
import { api, isAdmin, me, query, signOut } from "./api.js";
import { errorNotice, fill, h, loading, notice } from "./dom.js";
import * as fmt from "./format.js";

const TABS = { keys: "API keys", webhooks: "Webhooks", activity: "Activity" };

async function keysTab(body) {
  const who = await me();
  fill(
    body,
    h(
      "dl",
      { class: "fields", id: "identity" },
      [
        ["User", who.userId],
        ["Workspace", who.accountId],
        ["Role", who.roleSlugs.join(", ")],
        ["Signed in with", who.authMethod === "jwt" ? "a session token" : `API key ${who.apiKeyId}`],
        ["Scopes", (who.scopes || []).join(", ") || "none"],
      ].map(([k, v]) => h("div", { class: "field-row" }, h("dt", {}, k), h("dd", {}, v))),
    ),
    h("button", { type: "button", id: "sign-out-settings", onclick: () => signOut() }, "Sign out"),
    h("div", { id: "api-keys" }),
  );
  await keyList(body.querySelector("#api-keys"));
}

const ROLES = ["owner", "admin", "member", "viewer"];
const SCOPES = ["workspace:read", "records:read", "records:write", "agents:write"];

// The workspace's keys (GET /api/keys): create one (its secret shown once), revoke one.
async function keyList(box, made) {
  if (!isAdmin()) {
    fill(box, notice("Only a workspace's owners and admins manage API keys.", "warn"));
    return;
  }
  const { apiKeys } = await api("GET", "/v1/api/keys");
  const status = h("div", { id: "key-status" });
  const name = h("input", { id: "key-name", required: true, maxlength: 100, placeholder: "Nightly export" });
  const role = h("select", { id: "key-role" }, h("option", { value: "" }, "my role"), ROLES.map((r) => h("option", { value: r }, r)));
  const scopes = SCOPES.map((s) => h("label", { class: "check" }, h("input", { type: "checkbox", value: s, class: "key-scope" }), ` ${s}`));
  const form = h(
    "form",
    {
      class: "record-form",
      id: "key-form",
      novalidate: true,
      onsubmit: async (e) => {
        e.preventDefault();
        const body = { name: name.value };
        if (role.value) body.role = role.value;
        const picked = [...form.querySelectorAll(".key-scope:checked")].map((c) => c.value);
        if (picked.length) body.scopes = picked;
        try {
          await keyList(box, await api("POST", "/v1/api/keys", body));
        } catch (err) {
          fill(status, errorNotice(err), (err.issues || []).map((i) => h("p", { class: "field-error" }, i.message)));
        }
      },
    },
    h("div", { class: "form-row" }, h("label", { for: "key-name" }, "Name"), name),
    h("div", { class: "form-row" }, h("label", { for: "key-role" }, "Role"), role),
    h("fieldset", { class: "form-row" }, h("legend", {}, "Scopes (none ticked: everything the role may)"), scopes),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "key-create" }, "Create key")),
  );
  const secret = made
    ? h(
        "div",
        { class: "card", id: "new-key" },
        notice("Copy this key now: you will not see it again.", "ok"),
        h("pre", { class: "code", id: "new-key-secret" }, made.secret),
        h("button", {
          type: "button",
          id: "copy-key",
          onclick: async (e) => {
            try {
              await navigator.clipboard.writeText(made.secret);
              e.target.textContent = "Copied";
            } catch {
              e.target.textContent = "Select the key and copy it";
            }
          },
        }, "Copy"),
      )
    : null;
  fill(
    box,
    h("h2", {}, "API keys"),
    secret,
    status,
    h("div", { class: "scroll" }, h(
      "table",
      { class: "records", id: "keys-table" },
      h("thead", {}, h("tr", {}, ["Name", "Prefix", "Role", "Scopes", "Created", ""].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        apiKeys.map((k) => {
          const cell = h("td", {});
          if (k.revokedAt) cell.append(`revoked ${fmt.moment(k.revokedAt)}`);
          else {
            cell.append(h("button", {
              type: "button",
              class: "danger revoke",
              onclick: async () => {
                if (!confirm(`Revoke the key "${k.name || k.prefix}"? Whatever uses it stops working at once.`)) return;
                try {
                  await api("DELETE", `/v1/api/keys/${encodeURIComponent(k.id)}`);
                  await keyList(box);
                } catch (err) {
                  fill(status, errorNotice(err));
                }
              },
            }, "Revoke"));
          }
          return h("tr", { dataset: { keyId: k.id } }, h("td", {}, k.name || ""), h("td", {}, h("code", {}, `${k.prefix}…`)), h("td", {}, k.role), h("td", {}, (k.scopes || ["all of the role"]).join(", ")), h("td", {}, fmt.moment(k.createdAt)), cell);
        }),
      ),
    )),
    h("h2", {}, "Create a key"),
    form,
  );
}

function deliveries(hook, into) {
  return async () => {
    fill(into, loading());
    try {
      const { deliveries: items } = await api("GET", `/v1/webhooks/${encodeURIComponent(hook.id)}/deliveries`);
      fill(
        into,
        items.length
          ? h(
              "table",
              { class: "records deliveries" },
              h("thead", {}, h("tr", {}, ["Event", "Status", "Attempts", "Next attempt", ""].map((t) => h("th", { scope: "col" }, t)))),
              h(
                "tbody",
                {},
                items.map((d) => {
                  const cell = h("td", {});
                  const replay = h("button", {
                    type: "button",
                    onclick: async () => {
                      try {
                        await api("POST", `/v1/webhooks/${encodeURIComponent(hook.id)}/deliveries/${encodeURIComponent(d.id)}/replay`);
                        fill(cell, "queued again");
                      } catch (err) {
                        fill(cell, errorNotice(err));
                      }
                    },
                  }, "Replay");
                  cell.append(replay);
                  return h("tr", {}, h("td", {}, (d.event || {}).activityType || d.id), h("td", {}, d.status), h("td", {}, fmt.count(d.attemptCount)), h("td", {}, fmt.moment(d.nextAttemptAt)), cell);
                }),
              ),
            )
          : notice("No deliveries yet."),
      );
    } catch (err) {
      fill(into, errorNotice(err));
    }
  };
}

async function webhooksTab(body) {
  if (!isAdmin()) {
    fill(body, notice("Only a workspace's owners and admins manage webhooks.", "warn"));
    return;
  }
  const { webhooks } = await api("GET", "/v1/webhooks");
  const status = h("div", { id: "webhook-status" });
  const url = h("input", { id: "webhook-url", type: "url", required: true, placeholder: "https://example.com/hooks/fieldhouse" });
  const types = h("input", { id: "webhook-types", placeholder: "record_created, record_updated (empty: every type)" });
  const form = h(
    "form",
    {
      class: "record-form",
      novalidate: true,
      onsubmit: async (e) => {
        e.preventDefault();
        const eventTypes = types.value.split(",").map((s) => s.trim()).filter(Boolean);
        try {
          const made = await api("POST", "/v1/webhooks", { url: url.value, eventTypes });
          await webhooksTab(body);
          body.prepend(notice(`Webhook created. Its signing secret, shown once: ${made.webhook.secret}`, "ok"));
        } catch (err) {
          fill(status, errorNotice(err), (err.issues || []).map((i) => h("p", { class: "field-error" }, i.message)));
        }
      },
    },
    h("div", { class: "form-row" }, h("label", { for: "webhook-url" }, "URL"), url),
    h("div", { class: "form-row" }, h("label", { for: "webhook-types" }, "Activity types"), types),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Add webhook")),
  );
  fill(
    body,
    status,
    webhooks.length
      ? h(
          "ul",
          { class: "stack", id: "webhooks" },
          webhooks.map((hook) => {
            const log = h("div", {});
            return h(
              "li",
              { class: "card" },
              h("p", {}, h("code", {}, hook.url)),
              h("p", { class: "muted" }, `${hook.eventTypes.join(", ") || "every activity type"} · since ${fmt.moment(hook.createdDateTime)}`),
              h(
                "div",
                { class: "actions" },
                h("button", { type: "button", class: "log", onclick: deliveries(hook, log) }, "Delivery log"),
                h("button", {
                  type: "button",
                  class: "danger",
                  onclick: async () => {
                    try {
                      await api("DELETE", `/v1/webhooks/${encodeURIComponent(hook.id)}`);
                      await webhooksTab(body);
                    } catch (err) {
                      fill(status, errorNotice(err));
                    }
                  },
                }, "Delete"),
              ),
              log,
            );
          }),
        )
      : notice("No webhooks."),
    h("h2", {}, "Add a webhook"),
    form,
  );
}

async function activityTab(body, params) {
  const types = params.get("types") || "";
  const [{ activities }, { modules }] = await Promise.all([
    api("GET", `/v1/activity${query({ limit: 50, activityTypes: types })}`),
    api("GET", "/v1/modules"),
  ]);
  const byId = new Map(modules.map((m) => [m.id, m]));
  const box = h("input", { id: "activity-types", value: types, placeholder: "record_created,record_updated" });
  fill(
    body,
    h(
      "form",
      { class: "toolbar", onsubmit: (e) => { e.preventDefault(); location.hash = `#/settings?${new URLSearchParams({ tab: "activity", types: box.value })}`; } },
      h("label", { for: "activity-types" }, "Types"),
      box,
      h("button", { type: "submit" }, "Filter"),
    ),
    activities.length
      ? h(
          "ol",
          { class: "timeline", id: "activity-feed" },
          activities.map((a) => {
            const m = byId.get(a.moduleId);
            const name = (a.data || {}).displayName;
            return h(
              "li",
              {},
              h("time", { datetime: a.createdDateTime }, fmt.moment(a.createdDateTime)),
              " ",
              h("strong", {}, a.activityType.replace(/_/g, " ")),
              m ? ` · ${m.name}` : "",
              name ? [" · ", m && a.recordId ? h("a", { href: fmt.recordHref(m.slug, a.recordId) }, name) : name] : "",
            );
          }),
        )
      : notice("No activity."),
  );
}

export async function settingsView(root, params) {
  const tab = TABS[params.get("tab")] ? params.get("tab") : "keys";
  const body = h("div", { id: `settings-${tab}` }, loading());
  fill(
    root,
    h("h1", {}, "Settings"),
    h("nav", { class: "tabs", "aria-label": "Settings" }, Object.entries(TABS).map(([k, label]) => h("a", { href: `#/settings?tab=${k}`, "aria-current": k === tab ? "page" : undefined }, label))),
    body,
  );
  try {
    if (tab === "keys") await keysTab(body);
    else if (tab === "webhooks") await webhooksTab(body);
    else await activityTab(body, params);
  } catch (err) {
    fill(body, errorNotice(err));
  }
}
