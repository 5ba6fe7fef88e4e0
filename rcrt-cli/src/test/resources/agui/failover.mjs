// The official AG-UI client against two ./rcrt console processes of one store: it runs an agent at
// the first; when that process dies mid-run, its resumable fetch goes on at the second with
// Last-Event-ID. Prints one JSON object: the events the client saw, how it ended, and the reconnects.
import { HttpAgent } from "@ag-ui/client";
import { resumableFetch } from "./resumable-fetch.mjs";

const [url, fallback] = process.argv.slice(2);
const stats = { reconnects: 0 };
const agent = new HttpAgent({
  url,
  threadId: "failover",
  initialMessages: [{ id: "m1", role: "user", content: "take your time" }],
  fetch: resumableFetch(stats, { fallbacks: [fallback] }),
});
const seen = { types: [], finished: null, failed: null };
await agent.runAgent({}, {
  onEvent: ({ event }) => { seen.types.push(event.type); },
  onRunFinishedEvent: ({ event }) => { seen.finished = event; },
  onRunFailed: ({ error }) => { seen.failed = String(error); },
});
seen.reconnects = stats.reconnects;
seen.answer = agent.messages.filter((m) => m.role === "assistant").map((m) => m.content).join("\n");
console.log(JSON.stringify(seen));
