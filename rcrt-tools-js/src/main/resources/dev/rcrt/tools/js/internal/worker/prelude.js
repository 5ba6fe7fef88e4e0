// The sandbox's prelude, evaluated once per context (see JsSandbox): it builds context.api, fetch
// and the timers on the host bridge, and returns {call, runTimers}: call runs the tool's handler,
// runTimers runs one turn of the call's event loop. MAX_TIMERS is replaced before evaluation.
(function (host, netAllowed) {
  const unwrap = (text) => { const r = JSON.parse(text); if (r.error !== undefined) throw new Error(r.error); return r.value; };
  const json = (v) => JSON.stringify(v ?? {});
  const opt = (v) => v === undefined || v === null ? null : String(v);
  const api = Object.freeze({
    getBreadcrumb: async (id) => unwrap(host.get(String(id))),
    searchBreadcrumbs: async (query, limit) => unwrap(host.search(json(query), opt(limit))),
    vectorSearch: async (params) => unwrap(host.vector(json(params))),
    createBreadcrumb: async (payload) => unwrap(host.create(json(payload))),
    updateBreadcrumb: async (id, version, updates) => unwrap(host.update(String(id), opt(version), json(updates))),
    deleteBreadcrumb: async (id, version) => unwrap(host.delete(String(id), opt(version))),
    getSecret: async (id, reason) => unwrap(host.secret(String(id))),
    decryptSecret: async (id, reason) => unwrap(host.secret(String(id))),
  });
  if (netAllowed) {
    globalThis.fetch = async (url, init) => {
      init = init || {};
      const body = init.body === undefined || init.body === null ? null : String(init.body);
      const r = unwrap(host.fetch(String(url), String(init.method || 'GET'), JSON.stringify(init.headers || {}), body));
      return Object.freeze({ status: r.status, ok: r.status >= 200 && r.status < 300, headers: r.headers,
        text: async () => r.body, json: async () => JSON.parse(r.body) });
    };
  }
  const timers = new Map();
  let nextTimer = 1;
  const schedule = (fn, ms, args, repeat) => {
    if (typeof fn !== 'function') throw new TypeError('setTimeout and setInterval take a function; code in a string is not run');
    if (timers.size >= MAX_TIMERS) throw new RangeError('more than MAX_TIMERS timers pending');
    const delay = Math.max(0, Math.trunc(Number(ms)) || 0);
    const id = nextTimer++;
    timers.set(id, { id, fn, args, delay, repeat, due: Date.now() + delay, seq: id });
    return id;
  };
  const cancel = (id) => { timers.delete(Number(id)); };
  globalThis.setTimeout = (fn, ms, ...args) => schedule(fn, ms, args, false);
  globalThis.setInterval = (fn, ms, ...args) => schedule(fn, ms, args, true);
  globalThis.clearTimeout = cancel;
  globalThis.clearInterval = cancel;
  // One turn of the call's event loop: runs the timer due first, if it is due. Returns the
  // milliseconds until the next timer is due (0: run again now), or -1 when none is pending.
  const runTimers = () => {
    let first;
    for (const t of timers.values()) {
      if (first === undefined || t.due < first.due || (t.due === first.due && t.seq < first.seq)) first = t;
    }
    if (first === undefined) return -1;
    const wait = first.due - Date.now();
    if (wait > 0) return wait;
    if (first.repeat) { first.due = Date.now() + Math.max(1, first.delay); first.seq = nextTimer++; }
    else timers.delete(first.id);
    first.fn(...first.args);
    return 0;
  };
  const call = async function (fn, inputJson, requestJson, secretsJson, configJson) {
    let out;
    try {
      const fields = JSON.parse(requestJson);
      let trigger;
      const request = Object.freeze(Object.defineProperty(fields, 'trigger_event', {
        enumerable: true, get: () => (trigger === undefined ? (trigger = unwrap(host.trigger())) : trigger) }));
      const context = Object.freeze({ request, secrets: Object.freeze(JSON.parse(secretsJson)),
        config: Object.freeze(JSON.parse(configJson)), api });
      out = await fn(JSON.parse(inputJson), context);
    } catch (e) {
      const text = e && e.stack ? String(e.stack).split('\n').slice(0, 2).map(s => s.trim()).join(' ') : String(e);
      return JSON.stringify({ error: 'threw ' + text });
    }
    if (out === undefined) return JSON.stringify({ error: 'returned undefined; return a JSON value such as an object' });
    let text;
    try { text = JSON.stringify(out); } catch (e) { return JSON.stringify({ error: 'returned a value that is not JSON: ' + e }); }
    if (text === undefined) return JSON.stringify({ error: 'returned a ' + typeof out + ', which is not a JSON value' });
    return JSON.stringify({ value: text });
  };
  return { call, runTimers };
})
