import cluster from 'node:cluster';
import type { PeerMessage } from './messages.js';

const subscribers = new Map<string, Array<(payload: string) => void>>();
let subscribed = false;

/**
 * What one API process tells the others (through the primary), e.g. "forget this store's cached
 * CORS origins" after an operator changed them. Not clustered: nothing to tell.
 */
export const peers = {
  publish(topic: string, payload: string) {
    if (cluster.isWorker) process.send!({ type: 'vitrine:peers', topic, payload } satisfies PeerMessage);
  },
  subscribe(topic: string, handler: (payload: string) => void) {
    if (!cluster.isWorker) return;
    if (!subscribed) {
      subscribed = true;
      process.on('message', (message: PeerMessage) => {
        if (message?.type === 'vitrine:peers')
          for (const each of subscribers.get(message.topic) ?? []) each(message.payload);
      });
    }
    subscribers.set(topic, [...(subscribers.get(topic) ?? []), handler]);
  },
};
