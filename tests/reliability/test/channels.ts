/**
 * A recorder of @pay's tracing channels (docs/architecture.md#tracing-channels) for the observability tests: every
 * event of `pay:operation`, `pay:call`, `pay:attempt` and every `pay:webhook` and `pay:reconcile` message, with a copy of the context
 * as it was when the event fired and every text reachable from it at that moment (for the secret scan: errors are
 * redacted in place, so scanning later could miss what a subscriber saw).
 */
import dc from 'node:diagnostics_channel';
import { PAY_CHANNELS } from '@pay/core';
import { reachableText } from './support.js';

export type ChannelEvent = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error' | 'publish';

export interface RecordedMessage {
  channel: string;
  event: ChannelEvent;
  /** A shallow copy of the context at the time of the event. */
  message: Record<string, unknown>;
  /** Every string reachable from the context at the time of the event. */
  texts: string[];
}

export interface ChannelRecorder {
  readonly messages: RecordedMessage[];
  /** The contexts of one channel at one event, in order. */
  of(channel: string, event: ChannelEvent): Record<string, unknown>[];
  stop(): void;
}

/** Subscribes to the four channels until `stop()`. `scan: false` skips collecting texts (faster). */
export function recordChannels(options: { scan?: boolean } = {}): ChannelRecorder {
  const scan = options.scan ?? true;
  const messages: RecordedMessage[] = [];
  const stops: Array<() => void> = [];
  const push = (channel: string, event: ChannelEvent, context: object) =>
    messages.push({
      channel,
      event,
      message: { ...(context as Record<string, unknown>) },
      texts: scan ? reachableText(context) : [],
    });
  for (const name of [PAY_CHANNELS.operation, PAY_CHANNELS.call, PAY_CHANNELS.attempt]) {
    const channel = dc.tracingChannel(name);
    const handlers = {
      start: (context: object) => push(name, 'start', context),
      end: (context: object) => push(name, 'end', context),
      asyncStart: (context: object) => push(name, 'asyncStart', context),
      asyncEnd: (context: object) => push(name, 'asyncEnd', context),
      error: (context: object) => push(name, 'error', context),
    };
    channel.subscribe(handlers as never);
    stops.push(() => channel.unsubscribe(handlers as never));
  }
  for (const name of [PAY_CHANNELS.webhook, PAY_CHANNELS.reconcile]) {
    const onMessage = (message: unknown) => push(name, 'publish', message as object);
    dc.subscribe(name, onMessage);
    stops.push(() => dc.unsubscribe(name, onMessage));
  }
  return {
    messages,
    of: (channel, event) =>
      messages.filter((item) => item.channel === channel && item.event === event).map((item) => item.message),
    stop() {
      for (const stop of stops.splice(0)) stop();
    },
  };
}
