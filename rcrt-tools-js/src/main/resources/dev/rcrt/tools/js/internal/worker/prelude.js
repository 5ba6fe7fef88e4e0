// The sandbox's prelude, evaluated once per context (see JsSandbox): it builds context.api, fetch
// and the timers on the host bridge, and returns {call, runTimers}: call runs the tool's handler,
// runTimers runs one turn of the call's event loop. MAX_TIMERS and MAX_NOTES are replaced before
// evaluation.
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
  // The way back to the caller (ToolExchange): progress and log messages are notifications, sent
  // without waiting; sample and elicit are questions the host answers. The host bounds all of them
  // too; the counter only spares the pipe a flood it would drop.
  // Only a call's own code sends them: a module evaluated ahead of its call (a spare context) stays quiet.
  let notes = 0;
  let calling = false;
  const notify = (op, fields) => { if (calling && notes++ < MAX_NOTES) host[op](JSON.stringify(fields)); };
  const text = (v) => { if (typeof v === 'string') return v; try { const t = JSON.stringify(v); return t === undefined ? String(v) : t; } catch (e) { return String(v); } };
  const progress = (done, total, message) => notify('progress', { progress: Number(done), total: total === undefined || total === null ? null : Number(total),
    message: message === undefined || message === null ? null : String(message) });
  const log = (level, ...parts) => notify('log', { level: String(level), message: parts.map(text).join(' ') });
  const sample = async (request, options) => {
    const r = typeof request === 'string' ? { messages: [{ role: 'user', text: request }], ...(options || {}) } : (request || {});
    const messages = (r.messages || []).map(m => ({ role: String(m.role || 'user'),
      text: typeof m.content === 'object' && m.content !== null ? String(m.content.text ?? '') : String(m.text ?? m.content ?? '') }));
    return unwrap(host.sample(JSON.stringify({ messages, systemPrompt: r.systemPrompt ?? null, maxTokens: Number(r.maxTokens ?? 1000) })));
  };
  const elicit = async (message, requestedSchema) => unwrap(host.elicit(JSON.stringify({ message: String(message), requestedSchema })));
  for (const [method, level] of [['log', 'info'], ['info', 'info'], ['debug', 'debug'], ['warn', 'warning'], ['error', 'error']]) {
    const original = console[method];
    console[method] = (...parts) => { original.apply(console, parts); log(level, ...parts); };
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
    calling = true;
    let out;
    try {
      const fields = JSON.parse(requestJson);
      let trigger;
      const request = Object.freeze(Object.defineProperty(fields, 'trigger_event', {
        enumerable: true, get: () => (trigger === undefined ? (trigger = unwrap(host.trigger())) : trigger) }));
      const context = Object.freeze({ request, secrets: Object.freeze(JSON.parse(secretsJson)),
        config: Object.freeze(JSON.parse(configJson)), api, progress, log, sample, elicit });
      out = await fn(JSON.parse(inputJson), context);
    } catch (e) {
      // the message and the first frame of the tool's own code (not the prelude's, where a host call's error is thrown)
      const lines = e && e.stack ? String(e.stack).split('\n').map(s => s.trim()) : [];
      const frame = lines.slice(1).find(l => !l.includes('rcrt-prelude.js'));
      const text = lines.length > 0 ? lines[0] + (frame ? ' ' + frame : '') : String(e);
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
