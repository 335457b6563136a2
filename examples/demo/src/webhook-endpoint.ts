import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type NodeRequestLike, type NodeResponseLike, toNodeListener, type WebhookHandler } from '@pay/core';

/** A real local webhook endpoint behind core's Node bridge, as an application would run it. */
export async function startWebhookEndpoint(
  handler: WebhookHandler<never>,
): Promise<{ url: string; close(): Promise<void> }> {
  const listener = toNodeListener(handler);
  const server = createServer((req, res) => void listener(req as NodeRequestLike, res as NodeResponseLike));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
