/**
 * The newcomer's local loop (docs/architecture.md#local-loop), as the demo drives it: each provider's simulator
 * started the way `pay dev <package>` starts it (the `simulator` descriptor of the package's `./testing` entry,
 * docs/architecture.md#simulator-descriptor), the app's webhook endpoint
 * receiving the simulator's forwarded signed webhooks, and the payer acting on the hosted page over HTTP as a
 * browser does.
 */
import type { WebhookHandler } from '@pay/core';
import { type ProviderNSimulator, simulator as providerNSimulator } from '@pay/provider-n/testing';
import { type ProviderRSimulator, simulator as providerRSimulator } from '@pay/provider-r/testing';
import { type ProviderTSimulator, simulator as providerTSimulator } from '@pay/provider-t/testing';
import { step } from './transcript.js';
import { startWebhookEndpoint } from './webhook-endpoint.js';

interface Simulators {
  'provider-t': ProviderTSimulator;
  'provider-r': ProviderRSimulator;
  'provider-n': ProviderNSimulator;
}

/** Each package's simulator descriptor, where `pay dev` finds it. */
const DESCRIPTORS = {
  'provider-t': providerTSimulator,
  'provider-r': providerRSimulator,
  'provider-n': providerNSimulator,
} as const;

/**
 * Starts `provider`'s simulator with the options `pay dev` passes (`{ port }`; 0 here: any free port, so the demo
 * never collides with a `pay dev` already running on 4010).
 */
export async function startLikePayDev<P extends keyof Simulators>(provider: P): Promise<Simulators[P]> {
  // The descriptor promises the kit's interface; the simulator it starts is the package's own, with its extras.
  return (await DESCRIPTORS[provider].start({ port: 0 })) as unknown as Simulators[P];
}

/** The app's webhook endpoint, and the simulator forwarding every payment change to it (`pay dev --forward`). */
export async function forwardTo(
  simulator: { url: string; forwardWebhooks(url: string | null): void },
  handler: WebhookHandler<never>,
): Promise<{ url: string; close(): Promise<void> }> {
  const endpoint = await startWebhookEndpoint(handler);
  simulator.forwardWebhooks(endpoint.url);
  step(`pay dev: simulator on ${simulator.url}, forwarding signed webhooks to the app`, {
    webhooks: endpoint.url,
  });
  return endpoint;
}

/** What the payer saw on the hosted page and where the page sent the browser afterwards. */
export interface HostedPageVisit {
  /** The page's heading (`Pay CZK 250.50`). */
  heading: string;
  /** The buttons offered. */
  buttons: string[];
  /** The status of the form's POST (303 when the page sends the browser back to the shop). */
  status: number;
  /** Where the browser is sent (`Location`), or null. */
  location: string | null;
}

const ENTITIES: ReadonlyMap<string, string> = new Map([
  ['&amp;', '&'],
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&quot;', '"'],
  ['&#39;', "'"],
]);

function decodeHtml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES.get(entity) ?? entity);
}

/** The value of attribute `name` in a tag's attribute text, decoded. */
function attribute(attributes: string, name: string): string | undefined {
  const found = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes);
  return found?.[1] === undefined ? undefined : decodeHtml(found[1]);
}

/**
 * A person on the hosted page at `pageUrl`, as a browser does it: GET the page, find the form whose button does
 * `action` (`pay`, `fail`, `cancel`), and submit it (its method, action URL and fields) without following the
 * redirect, so the transcript shows where the page sends the payer.
 */
export async function actOnHostedPage(
  pageUrl: string,
  action: 'pay' | 'fail' | 'cancel',
): Promise<HostedPageVisit> {
  const page = await fetch(pageUrl);
  const html = await page.text();
  if (!page.ok) throw new Error(`The hosted page ${pageUrl} answered ${page.status}.`);
  const heading = decodeHtml(/<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? '');
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(
    ([, attributes = '', inner = '']) => {
      const fields = new URLSearchParams();
      for (const [, input = ''] of inner.matchAll(/<input\b([^>]*)>/g)) {
        const name = attribute(input, 'name');
        if (name !== undefined) fields.append(name, attribute(input, 'value') ?? '');
      }
      const button = decodeHtml(/<button\b[^>]*>([\s\S]*?)<\/button>/.exec(inner)?.[1] ?? '');
      return {
        method: attribute(attributes, 'method') ?? 'get',
        target: attribute(attributes, 'action') ?? '',
        fields,
        button,
      };
    },
  );
  const form = forms.find((candidate) => candidate.fields.get('action') === action);
  if (!form)
    throw new Error(
      `The hosted page ${pageUrl} offers no "${action}" (buttons: ${forms.map((f) => f.button).join(', ')}).`,
    );
  const submitted = await fetch(new URL(form.target || pageUrl, pageUrl), {
    method: form.method.toUpperCase(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.fields.toString(),
    redirect: 'manual',
  });
  await submitted.arrayBuffer();
  return {
    heading,
    buttons: forms.map((candidate) => candidate.button),
    status: submitted.status,
    location: submitted.headers.get('location'),
  };
}
