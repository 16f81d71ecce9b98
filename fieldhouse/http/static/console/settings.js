// Workspace settings a person needs: who this key is (and how keys are made), webhooks with
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
    notice("The API has no endpoint to create or revoke keys yet: an operator makes them with the command line.", "warn"),
    h("pre", { class: "code" }, "fieldhouse key create --workspace <id> [--user <user id>] [--scopes records:read,...]\nfieldhouse key list --workspace <id>\nfieldhouse key revoke <key id>"),
    h("button", { type: "button", id: "sign-out-settings", onclick: () => signOut() }, "Sign out"),
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
