// The official AG-UI client (@ag-ui/client, its HttpAgent and the event verification it runs) against
// the SDK's AG-UI server: a run with a tool call, then a run that waits for approval, resumed with
// the user's decision, then a run whose connection drops mid-run and is resumed with Last-Event-ID.
// Prints one JSON object: what the client saw.
import { HttpAgent } from "@ag-ui/client";

const [url] = process.argv.slice(2);

/**
 * A fetch for HttpAgent that survives a dropped connection: when a run's stream ends before its
 * RUN_FINISHED or RUN_ERROR, it posts the same input again with Last-Event-ID (the id of the last
 * event it passed on) and goes on with that stream, so the client sees one stream. With dropAfter,
 * it drops the first connection itself after that many events, as a network would.
 */
function resumableFetch(stats, dropAfter) {
  return async (target, init) => {
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let lastId = null;
    let ended = false;
    let first = true;
    const body = new ReadableStream({
      async start(controller) {
        while (!ended) {
          const headers = { ...init.headers };
          if (lastId) headers["Last-Event-ID"] = lastId;
          const abort = new AbortController();
          const response = await fetch(target, { ...init, headers, signal: abort.signal });
          if (!response.ok) { controller.error(new Error("HTTP " + response.status)); return; }
          const reader = response.body.getReader();
          let buffer = "";
          let passed = 0;
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += decoder.decode(value, { stream: true });
              let end;
              while ((end = buffer.indexOf("\n\n")) >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const id = block.split("\n").find((l) => l.startsWith("id: "));
                if (id) lastId = id.slice(4);
                if (/"type":"RUN_(FINISHED|ERROR)"/.test(block)) ended = true;
                controller.enqueue(encoder.encode(block + "\n\n"));
                passed++;
                if (first && dropAfter && passed === dropAfter && !ended) throw new Error("dropped");
              }
            }
          } catch (e) {
            abort.abort();
          }
          first = false;
          if (!ended) stats.reconnects++;
        }
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
  };
}
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
  fetch: resumableFetch(stats, 3),
});
const dropped = { types: [], finished: null, failed: null };
await dropping.runAgent({}, {
  onEvent: ({ event }) => { dropped.types.push(event.type); },
  onRunFinishedEvent: ({ event }) => { dropped.finished = event; },
  onRunFailed: ({ error }) => { dropped.failed = String(error); },
});
dropped.reconnects = stats.reconnects;
console.log(JSON.stringify({
  first, paused, resumed, dropped,
  messages: agent.messages.map(m => ({ role: m.role, content: m.content ?? null, toolCalls: (m.toolCalls ?? []).map(c => c.function.name) })),
}));
