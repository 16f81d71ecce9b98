// The agent chat (answers streamed over Server-Sent Events, tool calls shown as they happen)
// and the list of agent runs.
import { api, can, query, stream } from "./api.js";
import { errorNotice, fill, h, loading, notice } from "./dom.js";
import * as fmt from "./format.js";

let running = null;

const plural = (n, noun) => `${fmt.count(n)} ${noun}${n === 1 ? "" : "s"}`;

export function chatView(root) {
  const log = h("div", { class: "chat-log", id: "chat-log", "aria-live": "polite" });
  const box = h("textarea", { id: "chat-message", rows: 3, maxlength: 10000, placeholder: "Ask the agent, e.g. “find contacts named Ada”" });
  const send = h("button", { type: "submit", class: "primary", id: "chat-send" }, "Send");
  const stop = h("button", { type: "button", id: "chat-stop", hidden: true, onclick: () => running && running.abort() }, "Stop");
  const form = h(
    "form",
    { class: "chat-form", onsubmit: (e) => { e.preventDefault(); ask(); } },
    h("label", { for: "chat-message" }, "Message"),
    box,
    h("div", { class: "actions" }, send, stop, h("a", { href: "#/runs" }, "Runs")),
  );
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
  async function ask() {
    const message = box.value.trim();
    if (!message) return;
    box.value = "";
    const tools = h("ul", { class: "tools" });
    const answer = h("p", { class: "answer" });
    const foot = h("div", { class: "muted" });
    const turn = h("div", { class: "turn agent", dataset: { state: "streaming" } }, tools, answer, foot);
    log.append(h("div", { class: "turn user" }, h("p", {}, message)), turn);
    send.disabled = true;
    stop.hidden = false;
    running = new AbortController();
    try {
      await stream("/v1/agents/messages?stream=true", { message }, shower(tools, answer, foot, turn), running.signal);
    } catch (err) {
      turn.dataset.state = "error";
      foot.replaceChildren(err.name === "AbortError" ? notice("Stopped.", "warn") : errorNotice(err));
    } finally {
      running = null;
      send.disabled = false;
      stop.hidden = true;
      box.focus();
    }
  }
  fill(
    root,
    h("h1", {}, "Agent"),
    can("agents:write") ? null : notice("This key cannot chat with the agent (no agents:write).", "warn"),
    log,
    form,
  );
  box.focus();
}

const RESUMABLE = new Set(["waiting", "aborted", "interrupted"]);

/** What shows a run's events as they come: its tool calls as they start, its answer token by token. */
function shower(tools, answer, foot, turn) {
  return (name, data) => {
    if (name === "tool_call") tools.append(h("li", { class: "tool" }, h("code", {}, data.tool), " ", data.label));
    else if (name === "token") answer.append(data.text);
    else if (name === "done") {
      turn.dataset.state = "done";
      const pending = data.pendingApprovals || [];
      fill(
        foot,
        `${plural(data.toolCalls, "tool call")} · ${fmt.count(data.durationMs)} ms`,
        pending.length ? [" · ", h("a", { href: "#/approvals" }, `${pending.length} waiting for approval`)] : null,
      );
    } else if (name === "error") {
      turn.dataset.state = "error";
      foot.replaceChildren(notice(data.message, "error"));
    }
  };
}

function runRow(run) {
  const calls = h(
    "ul",
    { class: "tools" },
    run.toolCalls.map((c) => h("li", {}, h("code", {}, c.tool), " ", h("span", { class: `chip ${c.status}` }, c.status), " ", c.summary)),
  );
  const chip = h("span", { class: `chip ${run.status}` }, run.status);
  const live = h("div", {});
  const resume = async (event) => {
    const button = event.target;
    button.disabled = true;
    const tools = h("ul", { class: "tools" });
    const answer = h("p", { class: "answer" });
    const foot = h("div", { class: "muted" });
    const turn = h("div", { class: "turn agent", dataset: { state: "streaming" } }, tools, answer, foot);
    fill(live, turn);
    try {
      await stream(`/v1/agents/runs/${encodeURIComponent(run.runId)}/resume?stream=true`, undefined, shower(tools, answer, foot, turn));
      const now = await api("GET", `/v1/agents/runs/${encodeURIComponent(run.runId)}`);
      chip.textContent = now.status;
      chip.className = `chip ${now.status}`;
      item.dataset.status = now.status;
      button.hidden = !RESUMABLE.has(now.status);
    } catch (err) {
      foot.replaceChildren(errorNotice(err));
    } finally {
      button.disabled = false;
    }
  };
  const item = h(
    "li",
    { class: "card run", dataset: { runId: run.runId, status: run.status } },
    h(
      "details",
      {},
      h(
        "summary",
        {},
        chip,
        " ",
        run.message.length > 120 ? `${run.message.slice(0, 120)}…` : run.message,
        h("span", { class: "muted" }, ` · ${fmt.moment(run.createdDateTime)} · ${plural(run.toolCalls.length, "tool call")}`),
      ),
      run.response ? h("p", {}, run.response) : null,
      run.error ? notice(run.error, "error") : null,
      calls,
    ),
    RESUMABLE.has(run.status)
      ? h("div", { class: "actions" }, h("button", { type: "button", class: "resume", onclick: resume }, "Resume"))
      : null,
    live,
  );
  return item;
}

export async function runsView(root, params) {
  fill(root, h("h1", {}, "Agent runs"), loading());
  try {
    const page = await api("GET", `/v1/agents/runs${query({ limit: 25, cursor: params.get("cursor") || "" })}`);
    fill(
      root,
      h("h1", {}, "Agent runs"),
      page.runs.length ? h("ol", { class: "stack", id: "runs" }, page.runs.map(runRow)) : notice("No runs yet."),
      h(
        "nav",
        { class: "pager" },
        params.get("cursor") ? h("a", { class: "button", href: "#/runs" }, "Newest") : null,
        page.nextCursor ? h("a", { class: "button", href: `#/runs?${new URLSearchParams({ cursor: page.nextCursor })}` }, "Older ›") : null,
      ),
    );
  } catch (err) {
    fill(root, h("h1", {}, "Agent runs"), errorNotice(err));
  }
}
