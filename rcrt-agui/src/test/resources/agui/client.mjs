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

async function run(params) {
  const types = [];
  let finished = null;
  let failed = null;
  await agent.runAgent(params, {
    onEvent: ({ event }) => { types.push(event.type); },
    onRunFinishedEvent: ({ event }) => { finished = event; },
    onRunFailed: ({ error }) => { failed = String(error); },
  });
  return { types, finished, failed };
}

const first = await run({});
agent.messages.push({ id: "u2", role: "user", content: "pay the bill" });
const paused = await run({});
const interrupt = paused.finished?.outcome?.interrupts?.[0];
const resumed = await run({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
const stats = { reconnects: 0 };
const dropping = new HttpAgent({
  url,
  threadId: "js-drop-" + process.pid,
  initialMessages: [{ id: "u3", role: "user", content: "what is 17 * 23?" }],
  fetch: resumableFetch(stats, { dropAfter: 3 }),
});
const dropped = { types: [], finished: null, failed: null };
await dropping.runAgent({}, {
  onEvent: ({ event }) => { dropped.types.push(event.type); },
  onRunFinishedEvent: ({ event }) => { dropped.finished = event; },
  onRunFailed: ({ error }) => { dropped.failed = String(error); },
});
dropped.reconnects = stats.reconnects;
// a connection dropped in the middle of an answer as it streams: the rest of the text comes once
const storyStats = { reconnects: 0 };
const storyteller = new HttpAgent({
  url,
  threadId: "js-story-" + process.pid,
  initialMessages: [{ id: "u4", role: "user", content: "tell me a story" }],
  fetch: resumableFetch(storyStats, { dropAfter: 3 }),
});
const story = { types: [], failed: null };
await storyteller.runAgent({}, {
  onEvent: ({ event }) => { story.types.push(event.type); },
  onRunFailed: ({ error }) => { story.failed = String(error); },
});
story.reconnects = storyStats.reconnects;
story.answer = storyteller.messages.filter(m => m.role === "assistant").map(m => m.content);
console.log(JSON.stringify({
  first, paused, resumed, dropped, story,
  messages: agent.messages.map(m => ({ role: m.role, content: m.content ?? null, toolCalls: (m.toolCalls ?? []).map(c => c.function.name) })),
}));
