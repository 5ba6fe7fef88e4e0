// The official AG-UI client (@ag-ui/client, its HttpAgent and the event verification it runs) against
// the SDK's AG-UI server: a run with a tool call, then a run that waits for approval, resumed with
// the user's decision, then a run whose connection drops mid-run and is resumed with Last-Event-ID,
// and one whose connection drops while its answer streams.
// Prints one JSON object: what the client saw.
import { HttpAgent } from "@ag-ui/client";
import { resumableFetch } from "./resumable-fetch.mjs";

const [url] = process.argv.slice(2);

const agent = new HttpAgent({
  url,
  threadId: "js-" + process.pid,
  initialMessages: [{ id: "u1", role: "user", content: "what is 17 * 23?" }],
});

/** Runs `on` once and returns the types of the events it saw, its RUN_FINISHED and why it failed, if it did. */
async function run(on, params) {
  const types = [];
  let finished = null;
  let failed = null;
  await on.runAgent(params, {
    onEvent: ({ event }) => { types.push(event.type); },
    onRunFinishedEvent: ({ event }) => { finished = event; },
    onRunFailed: ({ error }) => { failed = String(error); },
  });
  return { types, finished, failed };
}

/** A run of a new thread whose first connection drops after three events; it goes on with Last-Event-ID. */
async function droppedAfterThree(name, question) {
  const stats = { reconnects: 0 };
  const dropping = new HttpAgent({
    url,
    threadId: name + "-" + process.pid,
    initialMessages: [{ id: name, role: "user", content: question }],
    fetch: resumableFetch(stats, { dropAfter: 3 }),
  });
  const seen = await run(dropping, {});
  seen.reconnects = stats.reconnects;
  seen.answer = dropping.messages.filter(m => m.role === "assistant" && m.content).map(m => m.content);
  return seen;
}

const first = await run(agent, {});
agent.messages.push({ id: "u2", role: "user", content: "pay the bill" });
const paused = await run(agent, {});
const interrupt = paused.finished?.outcome?.interrupts?.[0];
const resumed = await run(agent, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
const dropped = await droppedAfterThree("js-drop", "what is 17 * 23?");
// a connection dropped in the middle of an answer as it streams: the rest of the text comes once
const story = await droppedAfterThree("js-story", "tell me a story");
console.log(JSON.stringify({
  first, paused, resumed, dropped, story,
  messages: agent.messages.map(m => ({ role: m.role, content: m.content ?? null, toolCalls: (m.toolCalls ?? []).map(c => c.function.name) })),
}));
