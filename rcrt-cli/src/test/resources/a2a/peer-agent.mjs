// An A2A agent served with the official JavaScript SDK (@a2a-js/sdk 0.3.x server API on express),
// for the Java tests: node peer-agent.mjs PORT. It quotes parcel shipping, with one skill, and a
// message that says "stall" starts a task that never finishes (until cancelled).
import express from 'express';
import { randomUUID } from 'node:crypto';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';

const port = Number(process.argv[2] || 0);
const stalled = new Map();

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = userMessage.parts.filter((p) => p.kind === 'text').map((p) => p.text).join(' ');
    if (!ctx.task) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [userMessage] });
    }
    const status = (state, words, final) => bus.publish({
      kind: 'status-update', taskId, contextId, final,
      status: { state, timestamp: new Date().toISOString(),
        message: words && { kind: 'message', role: 'agent', messageId: randomUUID(), taskId, contextId, parts: [{ kind: 'text', text: words }] } },
    });
    status('working', 'Looking up the rate', false);
    if (/stall/i.test(text)) {
      stalled.set(taskId, bus); // never finishes by itself
      return;
    }
    const city = (text.match(/to ([A-Z][a-z]+)/) || [])[1] || 'Oslo';
    bus.publish({ kind: 'artifact-update', taskId, contextId, lastChunk: true,
      artifact: { artifactId: 'quote', name: 'quote', parts: [{ kind: 'text', text: `Shipping a parcel to ${city} costs 63 NOK.` }] } });
    status('completed', null, true);
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    stalled.delete(taskId);
    bus.publish({ kind: 'status-update', taskId, contextId: '', final: true, status: { state: 'canceled', timestamp: new Date().toISOString() } });
    bus.finished();
  },
};

const app = express();
const server = app.listen(port, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'Parcel Desk', description: 'Quotes parcel shipping.', url: base + '/', version: '1.0.0', protocolVersion: '0.3.0',
    capabilities: { streaming: true, pushNotifications: false }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    preferredTransport: 'JSONRPC',
    skills: [{ id: 'shipping-quote', name: 'Shipping quote', description: 'The price of shipping a parcel to a city', tags: ['shipping'],
      examples: ['What does shipping to Oslo cost?'] }],
  };
  new A2AExpressApp(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)).setupRoutes(app);
  console.log('peer agent listening on ' + base);
});
