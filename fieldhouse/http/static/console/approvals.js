// The approvals inbox: agent tool calls waiting for an owner or admin, with their previews;
// approve (the arguments may be edited first) or reject with a reason the model reads.
import { api, isAdmin } from "./api.js";
import { errorNotice, fill, h, loading, notice } from "./dom.js";
import * as fmt from "./format.js";

const STATUSES = ["pending", "executed", "rejected", "expired"];

function shown(v) {
  if (typeof v === "string") return v;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.join(", ");
  return JSON.stringify(v, null, 1);
}

function preview(data) {
  return h(
    "dl",
    { class: "preview" },
    Object.entries(data || {}).map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, shown(v)))),
  );
}

function card(item) {
  const status = h("div", { class: "card-status", role: "status" });
  const args = JSON.stringify(item.arguments, null, 2);
  const editor = h("textarea", { id: `args-${item.id}`, rows: Math.min(12, args.split("\n").length + 1), class: "code" }, args);
  const reason = h("input", { id: `reason-${item.id}`, placeholder: "Reason (the agent reads it)", maxlength: 1000 });
  const decide = async (what) => {
    let body;
    if (what === "approve" && editor.value !== args) {
      try {
        body = { arguments: JSON.parse(editor.value) };
      } catch (err) {
        fill(status, notice(`The arguments are not valid JSON: ${err.message}`, "error"));
        return;
      }
    }
    if (what === "reject" && reason.value.trim()) body = { reason: reason.value.trim() };
    for (const b of article.querySelectorAll("button")) b.disabled = true;
    try {
      const done = await api("POST", `/api/approvals/${encodeURIComponent(item.id)}/${what}`, body);
      const outcome = done.outcome ? ` · ${done.outcome.status}: ${done.outcome.summary}` : "";
      article.dataset.status = done.approval.status;
      fill(status, notice(`${done.approval.status}${outcome}`, "ok"));
    } catch (err) {
      for (const b of article.querySelectorAll("button")) b.disabled = false;
      fill(status, errorNotice(err));
    }
  };
  const pending = item.status === "pending";
  const article = h(
    "article",
    { class: "card approval", id: `approval-${item.id}`, dataset: { status: item.status, tool: item.tool } },
    h("h2", {}, item.tool, " ", h("span", { class: `chip ${item.status}` }, item.status)),
    h("p", {}, item.description),
    h(
      "p",
      { class: "muted" },
      `Requested ${fmt.moment(item.requestedAt)}`,
      item.decidedAt ? ` · decided ${fmt.moment(item.decidedAt)}` : "",
      item.reason ? ` · reason: ${item.reason}` : "",
      item.originalArguments ? " · arguments edited by the approver" : "",
      item.outcome ? ` · ${item.outcome.status}: ${item.outcome.summary}` : "",
    ),
    preview(item.preview),
    pending
      ? h(
          "details",
          {},
          h("summary", {}, "Arguments (edit before approving)"),
          h("label", { for: `args-${item.id}`, class: "sr" }, "Arguments as JSON"),
          editor,
        )
      : null,
    pending
      ? h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "primary approve", onclick: () => decide("approve") }, "Approve"),
          h("label", { for: `reason-${item.id}`, class: "sr" }, "Reason for rejecting"),
          reason,
          h("button", { type: "button", class: "danger reject", onclick: () => decide("reject") }, "Reject"),
        )
      : null,
    status,
  );
  return article;
}

export async function approvalsView(root, params) {
  const status = STATUSES.includes(params.get("status")) ? params.get("status") : "pending";
  const tabs = h(
    "nav",
    { class: "tabs", "aria-label": "Approval status" },
    STATUSES.map((s) => h("a", { href: `#/approvals?status=${s}`, "aria-current": s === status ? "page" : undefined }, s)),
  );
  fill(root, h("h1", {}, "Approvals"), tabs, loading());
  if (!isAdmin()) {
    fill(root, h("h1", {}, "Approvals"), notice("Only a workspace's owners and admins decide approvals.", "warn"));
    return;
  }
  try {
    const { approvals } = await api("GET", `/api/approvals?status=${status}&limit=50`);
    fill(
      root,
      h("h1", {}, "Approvals"),
      tabs,
      approvals.length ? h("div", { class: "stack", id: "approvals" }, approvals.map(card)) : notice(`No ${status} approvals.`),
    );
  } catch (err) {
    fill(root, h("h1", {}, "Approvals"), tabs, errorNotice(err));
  }
}
