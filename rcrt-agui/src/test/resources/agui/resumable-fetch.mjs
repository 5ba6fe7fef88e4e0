// The resumable fetch the AG-UI reference describes: a browser or Node front-end can take it as it is.
/**
 * A fetch for @ag-ui/client's HttpAgent that survives a dropped connection or a dead server: when a
 * run's stream ends, or its connection breaks, before its RUN_FINISHED or RUN_ERROR, it posts the
 * same input again with Last-Event-ID (the id of the last event it passed on), to the next of
 * `fallbacks` if there are any (other servers of the same store), and goes on with that stream, so
 * the client sees one stream. `stats.reconnects` counts the reconnections. With `dropAfter`, it
 * drops the first connection itself after that many events, as a network would.
 */
export function resumableFetch(stats, { dropAfter = 0, fallbacks = [] } = {}) {
  return async (url, init) => {
    const targets = [url, ...fallbacks];
    let target = url;
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
          let passed = 0;
          try {
            const response = await fetch(target, { ...init, headers, signal: abort.signal });
            if (!response.ok) { controller.error(new Error("HTTP " + response.status)); return; }
            const reader = response.body.getReader();
            let buffer = "";
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
            if (passed === 0) { // this server is gone: the next one, if there is one
              const next = targets.indexOf(target) + 1;
              if (next >= targets.length) { controller.error(e); return; }
              target = targets[next];
            }
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
