// The RCRT console: runs, trails, approvals, tools, search and chat, read from the server's JSON API
// and its AG-UI endpoint. Everything a record says is shown as text (textContent), never as markup:
// records are written by tools and remote callers.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { view: "runs", threadId: "console-" + Math.random().toString(36).slice(2, 10) };

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    if (c instanceof Node) td.appendChild(c); else td.textContent = c === undefined || c === null ? "" : String(c);
    tr.appendChild(td);
  }
  return tr;
}

function headers(extra) {
  const h = Object.assign({ Accept: "application/json" }, extra || {});
  const token = $("token").value;
  if (token) h.Authorization = "Bearer " + token;
  return h;
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

async function api(path, body) {
  const init = body === undefined ? { headers: headers() }
    : { method: "POST", headers: headers({ "Content-Type": "application/json" }), body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const json = await response.json().catch(() => ({ error: "HTTP " + response.status }));
  if (!response.ok) {
    throw new Error(json.error || ("HTTP " + response.status));
  }
  return json;
}

function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 90 ? s + " s ago" : s < 5400 ? Math.round(s / 60) + " min ago" : Math.round(s / 3600) + " h ago";
}

// --- runs and trails

async function showRuns() {
  const status = $("status").value;
  const runs = await api("/api/runs" + (status ? "?status=" + encodeURIComponent(status) : ""));
  const rows = $("run-rows");
  rows.replaceChildren();
  for (const r of runs) {
    const tr = row([r.id, r.agent, r.session, el("span", r.status, "status-" + r.status), ago(r.updated_at), r.answer || ""]);
    tr.className = "run";
    tr.addEventListener("click", () => showTrail(r.id).catch((e) => showError(e.message)));
    rows.appendChild(tr);
  }
  if (state.trail) await showTrail(state.trail);
}

async function showTrail(id) {
  const run = await api("/api/runs/" + encodeURIComponent(id));
  state.trail = id;
  $("trail").hidden = false;
  $("trail-id").textContent = id + " (" + run.status + ")";
  const rows = $("trail-rows");
  rows.replaceChildren();
  for (const r of run.records) {
    rows.appendChild(row([r.created_at, r.schema_name + (r.title ? ": " + r.title : ""), r.created_by, el("pre", JSON.stringify(r.context, null, 1))]));
  }
  for (const d of run.ignored_decisions) {
    rows.appendChild(row(["", "ignored decision", "", d]));
  }
}

// --- approvals

async function showApprovals() {
  const runs = await api("/api/runs?status=waiting_for_approval");
  const inbox = $("inbox");
  inbox.replaceChildren();
  if (runs.length === 0) inbox.appendChild(el("p", "Nothing waits for a decision."));
  for (const run of runs) {
    for (const call of run.pending) {
      if (!call.approval_expires_at) continue;
      const box = el("div", null, "call");
      box.appendChild(el("div", "Tool '" + call.tool + "' in run " + run.id + " of agent " + run.agent + " (session " + run.session + ")"));
      box.appendChild(el("pre", JSON.stringify(call.input, null, 1)));
      box.appendChild(el("div", "Expires " + call.approval_expires_at));
      const reason = el("input");
      reason.placeholder = "reason";
      box.appendChild(reason);
      for (const decision of ["approve", "deny"]) {
        const b = el("button", decision);
        b.addEventListener("click", async () => {
          try {
            await api("/api/runs/" + encodeURIComponent(run.id) + "/calls/" + encodeURIComponent(call.call),
              { decision, reason: reason.value, approver: $("approver").value });
            showError("");
            // said outside the inbox: the decision's own record refreshes the inbox, which no longer lists the call
            $("decided").textContent = (decision === "approve" ? "Approved" : "Denied") + ": tool '" + call.tool + "' in run " + run.id
              + ". The run goes on; its answer shows under Runs.";
            $("decided").hidden = false;
            box.remove();
          } catch (e) {
            showError(e.message);
          }
        });
        box.appendChild(b);
      }
      inbox.appendChild(box);
    }
  }
}

// --- tools and search

async function showTools() {
  const tools = await api("/api/tools");
  const rows = $("tool-rows");
  rows.replaceChildren();
  for (const t of tools) {
    rows.appendChild(row([t.name, t.type, t.runs_here ? "yes" : el("span", "no: " + t.why_not, "no"), t.description]));
  }
}

async function search(event) {
  event.preventDefault();
  const found = await api("/api/search?q=" + encodeURIComponent($("query").value));
  $("search-note").textContent = found.complete ? "" : found.not_indexed + " records are not indexed yet: they are left out.";
  const list = $("results");
  list.replaceChildren();
  for (const r of found.results) {
    list.appendChild(el("li", r.title + " (" + r.schema_name + ", " + r.id + ")"));
  }
}

// --- chat, through the AG-UI endpoint

async function agents() {
  const list = await api("/api/agents");
  const select = $("agent");
  select.replaceChildren();
  for (const a of list) {
    const o = el("option", a.id);
    o.value = a.id;
    select.appendChild(o);
  }
}

function say(text, className) {
  $("transcript").appendChild(el("div", text, className));
}

/** POSTs a RunAgentInput and shows the AG-UI events of its stream as they come. */
async function runAgent(input) {
  const response = await fetch("/agui/" + encodeURIComponent($("agent").value), {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(input),
  });
  if (!response.ok) {
    const json = await response.json().catch(() => ({}));
    throw new Error(json.error || ("HTTP " + response.status));
  }
  await readEvents(response, onAgUiEvent);
}

async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (data) onEvent(JSON.parse(data));
    }
  }
}

let text = null;
function onAgUiEvent(e) {
  switch (e.type) {
    case "TEXT_MESSAGE_START": text = el("div", ""); $("transcript").appendChild(text); break;
    case "TEXT_MESSAGE_CONTENT": if (text) text.textContent += e.delta; break;
    case "TOOL_CALL_START": say("→ " + e.toolCallName, "tool"); break;
    case "TOOL_CALL_ARGS": say("   " + e.delta, "tool"); break;
    case "TOOL_CALL_RESULT": say("← " + e.content, "tool"); break;
    case "RUN_ERROR": say("The run ended: " + e.message + (e.code ? " (" + e.code + ")" : ""), "no"); break;
    case "RUN_FINISHED":
      if (e.outcome && e.outcome.type === "interrupt") {
        for (const i of e.outcome.interrupts) interrupt(i);
      }
      break;
    default: break;
  }
}

function interrupt(i) {
  const box = el("div", null, "call");
  box.appendChild(el("div", i.message || i.reason));
  const answer = (status, payload) => async () => {
    box.remove();
    try {
      await runAgent({ threadId: state.threadId, runId: crypto.randomUUID(), messages: [], tools: [], context: [], state: {},
        resume: [{ interruptId: i.id, status, payload }] });
    } catch (e) {
      showError(e.message);
    }
  };
  if (i.reason === "tool_call") {
    const yes = el("button", "approve");
    yes.addEventListener("click", answer("resolved", { approved: true }));
    const no = el("button", "deny");
    no.addEventListener("click", answer("resolved", { approved: false }));
    box.append(yes, no);
  } else {
    const values = el("input");
    values.placeholder = "answer as JSON, e.g. {\"name\": \"Ada\"}";
    const send = el("button", "answer");
    send.addEventListener("click", () => {
      let payload;
      try { payload = JSON.parse(values.value || "{}"); } catch (e) { showError("the answer is not JSON"); return; }
      answer("resolved", payload)();
    });
    const cancel = el("button", "cancel");
    cancel.addEventListener("click", answer("cancelled"));
    box.append(values, send, cancel);
  }
  $("transcript").appendChild(box);
}

async function chat(event) {
  event.preventDefault();
  const message = $("message").value;
  if (!message) return;
  $("message").value = "";
  say(message, "user");
  await runAgent({ threadId: state.threadId, runId: crypto.randomUUID(), tools: [], context: [], state: {},
    messages: [{ id: crypto.randomUUID(), role: "user", content: message }] });
}

// --- views and live updates

const views = { runs: showRuns, approvals: showApprovals, tools: showTools, search: async () => {}, chat: agents };

async function show(view) {
  state.view = view;
  if (location.hash !== "#" + view) history.replaceState(null, "", "#" + view);
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b.dataset.view === view);
  for (const name of Object.keys(views)) $(name).hidden = name !== view;
  try {
    await views[view]();
    showError("");
  } catch (e) {
    showError(e.message);
  }
}

let refreshing = null;
function refresh() {
  if (refreshing || state.view === "chat" || state.view === "search") return;
  refreshing = setTimeout(() => { refreshing = null; show(state.view); }, 300);
}

async function live() {
  for (;;) {
    try {
      const response = await fetch("/api/events", { headers: headers({ Accept: "text/event-stream" }) });
      if (response.ok) {
        $("live").classList.add("on");
        await readEvents(response, (e) => { if (e.type !== "ready") refresh(); });
      }
    } catch (e) {
      // the server went away: try again shortly
    }
    $("live").classList.remove("on");
    await new Promise((done) => setTimeout(done, 2000));
  }
}

function remember(id) {
  $(id).value = sessionStorage.getItem("rcrt." + id) || "";
  $(id).addEventListener("change", () => { sessionStorage.setItem("rcrt." + id, $(id).value); show(state.view); });
}

document.addEventListener("DOMContentLoaded", () => {
  remember("token");
  remember("approver");
  for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => show(b.dataset.view));
  $("status").addEventListener("change", () => show("runs"));
  $("search-form").addEventListener("submit", (e) => search(e).catch((x) => showError(x.message)));
  $("chat-form").addEventListener("submit", (e) => chat(e).catch((x) => showError(x.message)));
  const first = location.hash.slice(1);
  show(Object.prototype.hasOwnProperty.call(views, first) ? first : "runs");
  live();
});
