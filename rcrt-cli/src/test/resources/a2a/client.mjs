// An A2A client written with the official JavaScript SDK (@a2a-js/sdk, protocol 0.3.0), driven by the
// Java tests: node client.mjs CARD_URL OP ARGS... prints one JSON document per line.
//   ask TEXT                      message/send (blocking): the result
//   stream TEXT                   message/stream: every event
//   start TEXT                    message/send with blocking: false: the task as it starts
//   reply TASK CONTEXT TEXT       message/send (blocking) continuing a task
//   get TASK                      tasks/get
//   cancel TASK                   tasks/cancel
//   card                          the resolved Agent Card
import { ClientFactory } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';

const [cardUrl, op, ...args] = process.argv.slice(2);
const client = await new ClientFactory().createFromUrl(cardUrl, '');
const message = (text, extra = {}) => ({ kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }], ...extra });
const print = (value) => console.log(JSON.stringify(value));

try {
  switch (op) {
    case 'card': print(await client.getAgentCard()); break;
    case 'ask': print(await client.sendMessage({ message: message(args[0]) })); break;
    case 'start': print(await client.sendMessage({ message: message(args[0]), configuration: { blocking: false } })); break;
    case 'reply': print(await client.sendMessage({ message: message(args[2], { taskId: args[0], contextId: args[1] }) })); break;
    case 'stream': for await (const event of client.sendMessageStream({ message: message(args[0]) })) print(event); break;
    case 'get': print(await client.getTask({ id: args[0] })); break;
    case 'cancel': print(await client.cancelTask({ id: args[0] })); break;
    default: throw new Error('unknown op ' + op);
  }
} catch (e) {
  print({ error: String(e && e.message || e) });
  process.exitCode = 3;
}
