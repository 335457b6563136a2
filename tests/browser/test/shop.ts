/**
 * The merchant's side of a browser test: one loopback app serving the success and cancel pages the payer returns
 * to, and the webhook endpoint (the adapter's real handler) that records every verified event.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PayEvent } from '@pay/core';
import { type LoopbackServer, startLoopbackServer } from '@pay/core/testing';

/** A running shop. */
export interface Shop {
  server: LoopbackServer;
  paidUrl: string;
  cancelledUrl: string;
  /** The one return URL of a provider that has no separate cancel URL (the shop then reads the status). */
  returnedUrl: string;
  webhookUrl: string;
  /** Verified events, in dispatch order. */
  events: PayEvent[];
  /** Sets the webhook endpoint's listener (the adapter's handler, once the simulator is up). */
  useWebhooks(listener: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): void;
}

const PAGES: ReadonlyMap<string, string> = new Map([
  ['/paid', 'Thank you: your payment is complete'],
  ['/cancelled', 'Your payment was cancelled'],
  ['/returned', 'Welcome back: checking your payment'],
]);

/** Starts the shop on 127.0.0.1. */
export async function startShop(): Promise<Shop> {
  let webhooks: ((req: IncomingMessage, res: ServerResponse) => void | Promise<void>) | undefined;
  const events: PayEvent[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/webhooks' && webhooks) return webhooks(req, res);
    const text = PAGES.get(path);
    res.writeHead(text ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Shop</title><h1>${text ?? 'Not found'}</h1>`);
  });
  return {
    server,
    paidUrl: `${server.url}/paid`,
    cancelledUrl: `${server.url}/cancelled`,
    returnedUrl: `${server.url}/returned`,
    webhookUrl: `${server.url}/webhooks`,
    events,
    useWebhooks: (listener) => {
      webhooks = listener;
    },
  };
}
