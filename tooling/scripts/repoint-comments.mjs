#!/usr/bin/env node
// Repoints comments that cite documents a reader of the repository cannot open at the repository's own docs
// (docs/architecture.md#<anchor>, docs/providers/provider-<x>.md#<anchor>), and checks every such link. No
// dependencies.
//
//   node tooling/scripts/repoint-comments.mjs --dry-run   print every change, write nothing
//   node tooling/scripts/repoint-comments.mjs --write     apply the changes
//   node tooling/scripts/repoint-comments.mjs --check     exit 1 if any old-style citation or dead anchor remains
//
// What it rewrites:
// - "design §6", "spec §2", "the wire contract "Webhooks"", `shared/providers/provider-r.md`: the documents the
//   project was first specified in (tables DESIGN, SPEC, WIRE_SECTIONS, WIRE_TOPICS);
// - "issue 11 §1", "(issue 16)", "Issue 14, Provider N: …", "Contract A": the issue tracker's numbers and the
//   names of working notes, which no reader can follow (table ISSUES; CONTRACTS). A citation that is the whole
//   of a parenthetical becomes the link; one beside other words in a parenthetical is replaced in place (or
//   dropped when the link is already there); one that opens a sentence is dropped and the link closes that
//   sentence; "X of issue 10 §3" becomes "X (link)".
//
// Scope: packages/*/src, packages/*/test, tests/*, examples/, tooling/ (TypeScript and JavaScript files; no
// node_modules, dist, reports). Inside comments every citation is rewritten. Inside string literals only
// "design §N" / "spec §N" and issue citations are (a test title citing an issue); the phrase "wire contract" in a
// string (a test title, an error message) is ordinary prose and stays. Long comment lines a rewrite made are
// wrapped again at 115 characters. Every anchor the tables name is checked against the headings of the docs, so a
// renamed heading fails the run instead of leaving a dead link. --check also follows every `docs/….md#anchor`
// link in comments and strings, and checks the Markdown a reader meets (READMEs, CONTRIBUTING.md, docs/,
// .changeset/) and the JSON files (package descriptions, fixtures' sources): no issue citation, and every link
// to a heading (relative in Markdown, GitHub's heading slugs) finds it. Those files are fixed by hand.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// REPOINT_ROOT: another tree to work on (the script's own tests run it on a scratch copy).
const ROOT = resolve(process.env.REPOINT_ROOT ?? fileURLToPath(new URL('../..', import.meta.url)));
/** This script and its tests: they quote old-style citations on purpose. */
const SELF = new Set(
  ['./repoint-comments.mjs', './repoint-comments.test.mjs'].map((name) =>
    relative(ROOT, fileURLToPath(new URL(name, import.meta.url))),
  ),
);
const ARCHITECTURE = 'docs/architecture.md';
const providerDoc = (provider) => `docs/providers/${provider}.md`;

// ---------------------------------------------------------------------------------------------------------------
// Mapping tables. Each section maps to a list of [pattern, anchor]: the first pattern that matches the comment
// line citing it (then the lines around it) decides; the last entry, with pattern null, is the default.

/** design.md § → docs/architecture.md anchor. */
const DESIGN = new Map([
  [1, [[null, 'packages']]],
  [
    2,
    [
      [/createPay|namespaces?/i, 'createpay'],
      [/config|factor(y|ies)|environment|transport options/i, 'configuration'],
      [/currenc/i, 'money'],
      [/required by the adapter|adapter that needs/i, 'request-fields'],
      [/adapter/i, 'adapter-operations'],
      [null, 'createpay'],
    ],
  ],
  [
    3,
    [
      [/\brecords?\b/i, 'records'],
      [/money|amount/i, 'money'],
      [null, 'records'],
    ],
  ],
  [
    4,
    [
      [/secret|redact|never let out/i, 'redaction'],
      [null, 'errors'],
    ],
  ],
  [
    5,
    [
      [/bridge/i, 'webhook-bridges'],
      [/dedup|deliver(y|ies)/i, 'webhook-deduplication'],
      [/handler/i, 'webhook-handler'],
      [/verif|crypto/i, 'webhook-verification'],
      [null, 'webhooks'],
    ],
  ],
  [
    6,
    [
      [/token/i, 'access-tokens'],
      [null, 'http-client'],
    ],
  ],
  [7, [[null, 'testing']]],
  [
    8,
    [
      [/refund/i, 'reading-provider-t-refunds'],
      [/retrieveCheckout|retrieve checkout|same transaction/i, 'reading-retrieve-checkout'],
      [/compliance|update step/i, 'reading-provider-t-compliance'],
      [/\bBasic\b|status call/i, 'reading-provider-r-auth'],
      [/token|login/i, 'reading-provider-n-token'],
      [/\bv1\b|version/i, 'reading-provider-n-versions'],
      [/checkout amount|quantity/i, 'reading-checkout-amount'],
      [null, 'readings'],
    ],
  ],
]);

/** spec/provider-behaviour.md § → docs/architecture.md anchor. A range (§1–§7) → the whole behaviour section. */
const SPEC = new Map([
  [1, [[null, 'capabilities']]],
  [
    2,
    [
      [/resolves to|checkoutUrl|receipt link/i, 'operations'],
      [null, 'request-fields'],
    ],
  ],
  [3, [[null, 'provider-flows']]],
  [4, [[null, 'operations']]],
  [5, [[null, 'authentication']]],
  [6, [[null, 'event-names']]],
  [7, [[null, 'unsupported-operations']]],
  [8, [[null, 'limits']]],
  [9, [[null, 'upstream-versions']]],
]);
const SPEC_RANGE_ANCHOR = 'behaviour';

/** Named sections of each shared wire contract → anchor in docs/providers/<provider>.md. */
const WIRE_SECTIONS = {
  'provider-t': new Map([
    ['hosts and configuration', 'hosts-and-configuration'],
    ['authentication', 'authentication'],
    ['identity fields', 'identity-fields'],
    ['errors', 'errors'],
    ['transfer', 'transfer'],
    ['transfer step 1', 'quote'],
    ['transfer step 2', 'update'],
    ['transfer step 3', 'commit'],
    ['status', 'status'],
    ['receiver-name amendment', 'receiver-name-amendment'],
    ['refund', 'refunds'],
    ['refund step 1', 'refunds'],
    ['refund step 2', 'refunds'],
    ['webhooks', 'webhooks'],
    ['name', 'update'],
    ['address', 'update'],
  ]),
  'provider-r': new Map([
    ['host and configuration', 'host-and-configuration'],
    ['hosts and configuration', 'host-and-configuration'],
    ['authentication', 'authentication'],
    ['response codes', 'response-codes'],
    ['amounts and currencies', 'amounts-and-currencies'],
    ['calls', 'calls'],
    ['status', 'status'],
    ['refund', 'refunds'],
    ['createcheckout', 'create-checkout'],
    ['createpayment', 'create-payment'],
    ['capture and cancel of a pre-authorisation', 'capture-and-cancel'],
    ['webhooks', 'webhooks'],
  ]),
  'provider-n': new Map([
    ['hosts and configuration', 'hosts-and-configuration'],
    ['envelope', 'envelope'],
    ['authentication', 'authentication'],
    ['amounts', 'amounts'],
    ['calls', 'calls'],
    ['createcheckout', 'create-checkout'],
    ['retrievepayment', 'transaction-query'],
    ['createrefund', 'refunds'],
    ['webhooks', 'webhooks'],
    ['status table', 'payment-statuses'],
    ['r1–r5', 'refund-codes'],
  ]),
};

/**
 * The table key of a section name as comments spell it: the shared headings' parentheses and anything after a
 * colon dropped ("Transfer: quote → update → commit (createPayment …)" → "transfer"), lower case.
 */
function sectionKey(name) {
  return name
    .replace(/\s*\([^)]*\)/g, '')
    .split(':')[0]
    .trim()
    .toLowerCase();
}

/** An uncited "wire contract" (no section named) → anchor, by what the comment line is about. */
const WIRE_TOPICS = {
  'provider-t': [
    [/refund/i, 'refunds'],
    [/amend/i, 'receiver-name-amendment'],
    [/signature|webhook|subscription|clock skew|older than/i, 'webhooks'],
    [/quote → update → commit|quote, update, commit/i, 'transfer'],
    [/readyForCommit|commit/i, 'commit'],
    [/request id|X-Client-Request-Id|UUID|replay/i, 'authentication'],
    [/base URL|defaults?\b|config/i, 'hosts-and-configuration'],
    [/transactionStatus|Transaction states?|\bstatus\b/i, 'status'],
    [null, null],
  ],
  'provider-r': [
    [/\bevents?\b/i, 'events'],
    [/statuse?s?\b/i, 'status'],
    [/refId|reference|no limit/i, 'create-payment'],
    [/push|webhook|signs nothing/i, 'webhooks'],
    [/every call|calls?\b/i, 'calls'],
    [null, null],
  ],
  'provider-n': [
    [/init-transaction, status query/i, 'calls'],
    [/\bevents?\b|mandate|raises|\.created\b|\.updated\b/i, 'events'],
    [/refund/i, 'refunds'],
    [/signature|webhook|secret key/i, 'webhooks'],
    [/checkout|payment methods/i, 'create-checkout'],
    [/paymentStatus|status table|\bstatus\b/i, 'payment-statuses'],
    [/login|token|Authorization/i, 'authentication'],
    [/base URL|\bpaths?\b/i, 'hosts-and-configuration'],
    [/envelope/i, 'envelope'],
    [/currenc/i, 'amounts'],
    [null, null],
  ],
};

/**
 * The issue tracker's numbers → anchors. Keys are `<issue>` (any section) or `<issue>§<section>` (a numbered
 * section, an "item" or a "defect" of it; `12§rule` is issue 12's "rule behind them"). Rules as above; an anchor
 * is a docs path with its anchor, `PROVIDER#<anchor>` (the wire contract of the provider the file or comment is
 * about; the rule is skipped when that is unknown) or null (the citation adds nothing: dropped). What each issue
 * was about, for whoever extends this table:
 *   7  reliability suite: fault matrix, forgery, load, secrets, bad input, edge runtimes
 *   10 webhook ingress: §1 bridges never crash, §2 a delivery bound to this merchant, §3 deduplication lease,
 *      §4 events from the confirmed status, §5 odd but signed input
 *   11 outbound calls: §1 "nothing happened" only when proven, §2 no credential anywhere, §3 input refused
 *   12 published payloads: defects 1–9, the lenient-reading rule, fixtures
 *   13 one adapter shape: item 1 provider client, 2 file roles, 3 simulator kit, 4 ky, 5 two entry points, 6 docs
 *   14 many instances: §1 idempotency keys and pay.resolve, §2 stores, §3 real servers and processes, §4 docs, bench
 *   15 observability: tracing channels, @pay/otel, the logger option
 *   16 a newcomer's day: one money model, request ids, safe recipes, clearer errors, per-call options, the local
 *      loop (pay dev, hosted pages, testing kit), release hygiene
 */
const PROVIDER = 'PROVIDER';
const A = (anchor) => `${ARCHITECTURE}#${anchor}`;
const P = (anchor) => `${PROVIDER}#${anchor}`;
const ISSUES = new Map([
  ['7', [[null, A('test-suites')]]],
  [
    '10',
    [
      [/prototype|constructor/i, A('events')],
      [null, A('webhooks')],
    ],
  ],
  ['10§1', [[null, A('webhook-bridges')]]],
  [
    '10§2',
    [
      [/bridge|origin|Host header|request target/i, A('webhook-bridges')],
      [/./, P('webhooks')],
      [null, A('webhook-verification')],
    ],
  ],
  [
    '10§3',
    [
      [/two-phase|phase 1/i, A('webhook-verification')],
      [null, A('webhook-deduplication')],
    ],
  ],
  [
    '10§4',
    [
      [/amount/i, A('records')],
      [/./, P('events')],
      [null, A('events')],
    ],
  ],
  [
    '10§5',
    [
      [/byte order|BOM/i, A('webhook-verification')],
      [null, A('events')],
    ],
  ],
  [
    '11§1',
    [
      [/\bhooks?\b/i, A('http-client')],
      [/shared login|login itself/i, A('access-tokens')],
      [/signal|abort/i, A('http-client')],
      [
        /capture was asked|already captured|found captured|captured amount|amount asked for/i,
        P('capture-and-cancel'),
      ],
      [null, A('outcomes')],
    ],
  ],
  ['11', [[null, A('outcomes')]]],
  ['11§2', [[null, A('redaction')]]],
  [
    '11§3',
    [
      [/amount|exponent|upper bound|MAX_SAFE_INTEGER/i, A('money')],
      [/metadata key|reserved name|constructor|prototype/i, A('adapter-operations')],
      [/TransactionReference|refund member|letter case/i, P('refunds')],
      [/provider_metadata|additionalDetails|record show/i, P('update')],
      [/lifetime|log in again|login/i, A('access-tokens')],
      [/`\.\.`|'\.\.'|path|segment|identifier/i, A('http-client')],
      [null, A('adapter-operations')],
    ],
  ],
  ['12§4', [[null, P('transaction-query')]]],
  ['12§7', [[null, P('transaction-query')]]],
  ['12§8', [[null, P('response-codes')]]],
  ['12§rule', [[null, A('lenient-reading')]]],
  [
    '12',
    [
      [/credential/i, A('test-suites')],
      [null, A('lenient-reading')],
    ],
  ],
  ['13§1', [[null, A('provider-client')]]],
  ['13§2', [[null, A('adapter-operations')]]],
  ['13§3', [[null, A('testing')]]],
  ['13§4', [[null, A('http-client')]]],
  ['13§5', [[null, A('packages')]]],
  ['13§6', [[null, null]]],
  [
    '13',
    [
      [/How it is judged|bench/i, null],
      [/simulator|kit/i, A('testing')],
      [/two entry points|@pay\/core\/adapter/i, A('packages')],
      [null, A('provider-client')],
    ],
  ],
  [
    '14§1',
    [
      [/idempotency ledger|idempotency keys/i, A('idempotency')],
      [/pay\.resolve|\bresolve\b/i, A('createpay')],
      [null, A('idempotency')],
    ],
  ],
  [
    '14§2',
    [
      [/Redis|Postgres|Valkey/i, A('stores')],
      [/token/i, A('access-tokens')],
      [null, A('stores')],
    ],
  ],
  [
    '14§3',
    [
      [/store failure fails|fails? closed|store itself fails/i, A('idempotency')],
      [null, A('test-suites')],
    ],
  ],
  ['14§4', [[null, A('stores')]]],
  [
    '14',
    [
      [/more than one instance|shared state/i, A('stores')],
      [/idempotency ledger|idempotency keys/i, A('idempotency')],
      [/pay\.resolve|\bresolve\b/i, A('createpay')],
      [/shared token|token cache|tokenStore/i, A('access-tokens')],
      [null, A('idempotency')],
    ],
  ],
  [
    '15',
    [
      [/channel message or a log line|channels and the logger/i, A('diagnostics')],
      [/logger|log line|in production/i, A('logger')],
      [null, A('tracing-channels')],
    ],
  ],
  [
    '16',
    [
      [/recipe/i, A('test-suites')],
      [/release hygiene|tarball|npm install/i, A('test-suites')],
      [
        /BASE_URL|pay dev|local loop|hosted|receipt page|testing kit|test adapter|WEBHOOK_PUBLIC_KEY/i,
        A('local-loop'),
      ],
      [/body parser|already parsed|parser leaves|raw body|consumed/i, A('webhook-handler')],
      [/request id|request_id/i, A('records')],
      [/type error|compile|the types say/i, A('request-fields')],
      [/amount|money model|standard unit|currency unit|major units|minor units/i, A('money')],
      [/timeout and retry|per-call|per call/i, A('createpay')],
      [
        /not_sent|unreachable|ECONNREFUSED|may have processed|connection failure|network error/i,
        A('http-client'),
      ],
      [/credentials|login/i, A('provider-client')],
      [/config|validation|quick start/i, A('configuration')],
      [null, A('records')],
    ],
  ],
]);

/**
 * Citations whose words only made sense next to the issue, rewritten whole before the rules above run: [pattern,
 * replacement].
 */
const ISSUE_PHRASES = [[/[ \t]*\(issue 13 keeps these where a test needs them\)/g, '']];

/** Names of working notes comments cited ("Contract A") → the section that describes the same thing. */
const CONTRACTS = new Map([
  ['A', A('provider-client')],
  ['B', A('testing')],
  ['C', A('tracing-channels')],
]);

// ---------------------------------------------------------------------------------------------------------------
// Files.

const EXTENSIONS = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'reports', 'coverage', '.turbo']);

/** The folders in scope, relative to the repository root. */
function scopeRoots() {
  const roots = [];
  for (const pkg of listDirectory('packages'))
    for (const part of ['src', 'test']) roots.push(join('packages', pkg, part));
  for (const suite of listDirectory('tests')) roots.push(join('tests', suite));
  roots.push('examples', 'tooling');
  return roots.filter((root) => isDirectory(join(ROOT, root)));
}

function listDirectory(folder) {
  const absolute = join(ROOT, folder);
  return isDirectory(absolute)
    ? readdirSync(absolute).filter((name) => isDirectory(join(absolute, name)))
    : [];
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function* sourceFiles(folder) {
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) yield* sourceFiles(path);
    } else if (EXTENSIONS.test(entry.name) && !SELF.has(path)) yield path;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Scanning: comments and string literals of JavaScript / TypeScript source.

const REGEX_PRECEDERS = new Set([...'(,=:[!&|?{};+-*%<>~^', undefined]);
const REGEX_KEYWORDS = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'void',
  'yield',
  'await',
]);

/** The comment and string segments of `text`: { kind: 'comment' | 'string', start, end }. */
function segmentsOf(text) {
  const segments = [];
  const templateDepths = []; // brace depth at which each open `${` returns to its template
  let depth = 0;
  let previous; // last significant character (or keyword) outside comments and strings
  let i = 0;
  const readTemplate = (from) => {
    let j = from;
    while (j < text.length) {
      if (text[j] === '\\') j += 2;
      else if (text[j] === '`') return { end: j + 1, interpolation: false };
      else if (text[j] === '$' && text[j + 1] === '{') return { end: j + 2, interpolation: true };
      else j++;
    }
    return { end: j, interpolation: false };
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      segments.push({ kind: 'comment', start: i, end: stop });
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      segments.push({ kind: 'comment', start: i, end: stop });
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      segments.push({ kind: 'string', start: i, end: j + 1 });
      i = j + 1;
      previous = 'literal';
    } else if (c === '`' || (c === '}' && templateDepths.at(-1) === depth)) {
      if (c === '}') templateDepths.pop();
      const { end, interpolation } = readTemplate(i + 1);
      segments.push({ kind: 'string', start: i, end });
      if (interpolation) templateDepths.push(depth);
      i = end;
      previous = 'literal';
    } else if (c === '/' && (REGEX_PRECEDERS.has(previous) || REGEX_KEYWORDS.has(previous))) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        else if (text[j] === '/' && !inClass) break;
        j++;
      }
      i = j + 1;
      while (/[a-z]/i.test(text[i] ?? '')) i++;
      previous = 'literal';
    } else if (/[A-Za-z_$0-9]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z_$0-9]/.test(text[j])) j++;
      const word = text.slice(i, j);
      previous = REGEX_KEYWORDS.has(word) ? word : 'identifier';
      i = j;
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      if (!/\s/.test(c)) previous = c === ')' || c === ']' ? 'literal' : c;
      i++;
    }
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------------------------
// Rewriting.

/** Whitespace inside a comment, possibly across a line break of a block comment (`\n * `). */
const GAP = String.raw`(?:[ \t]*\n[ \t]*\*(?!\/)[ \t]*|[ \t]+)`;
const SECTION_REF = new RegExp(
  String.raw`\b([Dd]esign|[Ss]pec)${GAP}§(\d+)((?:${GAP}?(?:,|and|–|-)${GAP}?§\d+)*)`,
  'g',
);
const QUOTED = String.raw`(?:"[^"\n]+"|“[^”\n]+”|\`[^\`\n]+\`)`;
const WIRE_SECTION_LIST = `${QUOTED}(?:${GAP}?(?:,|and)${GAP}?${QUOTED})*`;
const WIRE_CITED = new RegExp(
  String.raw`\bwire${GAP}contract(?:,|:)?${GAP}("(?:Transfer|Refund)" step \d|${WIRE_SECTION_LIST}|Transfer step \d|Refund step \d|status table|R1–R5)`,
  'g',
);
const WIRE_PHRASE = new RegExp(
  String.raw`\b(the${GAP})?wire${GAP}contracts?('s)?(?![\w'])(?![ \t]*\(\`?docs\/)`,
  'g',
);
const SHARED_PATH = /\bshared\/providers\/(provider-[trn])\.md\b/g;
const SHARED_OTHER = /\bshared\/(?:design\.md|spec\/provider-behaviour\.md)\b/g;

/** The provider a file is about, from its path (packages/provider-x/…), else from the comment's words. */
function providerOf(file, comment) {
  const fromPath = /(?:^|\/)provider-([trn])(?:\/|\.|-|$)/.exec(file);
  if (fromPath) return `provider-${fromPath[1]}`;
  const named = new Set(
    [...comment.matchAll(/\bProvider ([TRN])\b/g)].map((match) => match[1].toLowerCase()),
  );
  return named.size === 1 ? `provider-${[...named][0]}` : undefined;
}

/** The physical line of `text` around `index`, and that line with its neighbours. */
function contextAt(text, index) {
  const lineStart = text.lastIndexOf('\n', index - 1) + 1;
  const lineEnd = text.indexOf('\n', index) === -1 ? text.length : text.indexOf('\n', index);
  const before = text.lastIndexOf('\n', lineStart - 2) + 1;
  const after = text.indexOf('\n', lineEnd + 1) === -1 ? text.length : text.indexOf('\n', lineEnd + 1);
  return { line: text.slice(lineStart, lineEnd), around: text.slice(before, after) };
}

/** Picks the anchor from [pattern, anchor] rules: the line first, then the lines around it, then the default. */
function pick(rules, context) {
  for (const scope of [context.line, context.around])
    for (const [pattern, anchor] of rules) if (pattern?.test(scope)) return anchor;
  return rules.at(-1)[1];
}

/** Rewrites the citations in one comment (or, with `stringsOnly`, one string literal). */
function rewrite(text, file, { stringsOnly = false } = {}) {
  const unmapped = [];
  const sectionLink = (document, section, context) => {
    const table = document === 'design' ? DESIGN : SPEC;
    const rules = table.get(section);
    if (!rules) {
      unmapped.push(`${document} §${section}`);
      return ARCHITECTURE;
    }
    return `${ARCHITECTURE}#${pick(rules, context)}`;
  };
  let out = text.replace(SECTION_REF, (_match, documentWord, first, more, offset) => {
    const document = documentWord.toLowerCase();
    const context = contextAt(text, offset);
    const others = [...more.matchAll(/(,|and|–|-)[\s*]*§(\d+)/g)];
    const isRange = others.length === 1 && /[–-]/.test(others[0][1]);
    if (isRange && document === 'spec') return `${ARCHITECTURE}#${SPEC_RANGE_ANCHOR}`;
    const sections = isRange
      ? Array.from({ length: Number(others[0][2]) - Number(first) + 1 }, (_, k) => Number(first) + k)
      : [Number(first), ...others.map((other) => Number(other[2]))];
    const links = [...new Set(sections.map((section) => sectionLink(document, section, context)))];
    return links.length === 2 && /and/.test(more) ? links.join(' and ') : links.join(', ');
  });
  if (stringsOnly) return { text: out, unmapped };

  const provider = providerOf(file, text);
  out = out.replace(SHARED_PATH, (_, name) => providerDoc(name));
  out = out.replace(SHARED_OTHER, ARCHITECTURE);
  out = out.replace(WIRE_CITED, (match, list) => {
    if (!provider) {
      unmapped.push(`wire contract ${list} (provider unknown)`);
      return match;
    }
    const names = /^"?(?:Transfer|Refund)"? step|^status table|^R1–R5/.test(list)
      ? [list.replaceAll('"', '')]
      : [...list.matchAll(new RegExp(QUOTED, 'g'))].map((quoted) => quoted[0].slice(1, -1));
    const links = names.map((name) => {
      const anchor = WIRE_SECTIONS[provider].get(sectionKey(name));
      if (anchor === undefined) unmapped.push(`wire contract "${name}" (${provider})`);
      return anchor === undefined ? providerDoc(provider) : `${providerDoc(provider)}#${anchor}`;
    });
    const joiner = /"\s*and\s*"/.test(list) && links.length === 2 ? ' and ' : ', ';
    // A code range is a label the reader needs; section names are replaced by their links.
    return [...new Set(links)].join(joiner) + (list === 'R1–R5' ? `: ${list}` : '');
  });
  out = out.replace(WIRE_PHRASE, (match, the, possessive, offset, whole) => {
    const target = provider
      ? (() => {
          const anchor = pick(WIRE_TOPICS[provider], contextAt(whole, offset));
          return anchor ? `${providerDoc(provider)}#${anchor}` : providerDoc(provider);
        })()
      : 'docs/providers/';
    const before = whole.slice(0, offset).trimEnd().at(-1);
    const after = whole[offset + match.length];
    // A bare citation "(wire contract)" / "(…, wire contract)" / "(wire contract: …)" becomes the link itself;
    // a noun in a sentence keeps its words and gains the link.
    const citation = !the && !possessive && (before === '(' || before === ',') && /[),;:]/.test(after ?? '');
    if (citation) return target;
    return `${match} (${target})`;
  });
  return { text: out, unmapped };
}

// ---------------------------------------------------------------------------------------------------------------
// Issue citations.

/** Whitespace inside a comment or a run of line comments, possibly across a line break (`\n * `, `\n // `). */
const IG = String.raw`(?:[ \t]*\n[ \t]*(?:\*(?!\/)|\/\/+)?[ \t]*|[ \t]+)`;
const ISSUE_SECTIONS = String.raw`(?:${IG}§\d+(?:${IG}?(?:,|and)${IG}§\d+)*|${IG}(?:items?|defects?)${IG}\d+(?:${IG}and${IG}\d+)?|${IG}rule\b)`;
const ISSUE_TITLE = String.raw`(?:(?:,|:)?${IG}(?:"[^"\n]+"|“[^”\n]+”))`;
const ISSUE_ATOM = String.raw`\b[Ii]ssues?${IG}\d+(?:(?:,${IG}|${IG}and${IG})\d+(?![\d§]))*${ISSUE_SECTIONS}?(?:'s${IG}local${IG}loop)?${ISSUE_TITLE}?`;
const CONTRACT_ATOM = String.raw`\bContract [A-C]\b`;
const CITATION_ATOM = `(?:${ISSUE_ATOM}|${CONTRACT_ATOM})`;
const CITATION = new RegExp(`${CITATION_ATOM}(?:(?:,${IG}|${IG}and${IG})${CITATION_ATOM})*`, 'g');
/** What --check refuses: any "issue N" (or "issues N") and any "Contract A". */
const ISSUE_LEFTOVER = /\b[Ii]ssues?(?:[ \t]*\n[ \t]*(?:\*|\/\/+)?[ \t]*|[ \t]+)\d+|\bContract [A-C]\b/g;

/** The table keys one citation names: `11§1`, `12§rule`, `16`, …; `Contract A` → `contract:A`. */
function citationKeys(atom) {
  const flat = atom.replace(new RegExp(IG, 'g'), ' ');
  const contract = /^Contract ([A-C])$/.exec(flat);
  if (contract) return [`contract:${contract[1]}`];
  const numbers = /^[Ii]ssues? (\d+(?:(?:, | and )\d+(?![\d§]))*)/.exec(flat)[1].match(/\d+/g);
  const rest = flat.replace(/"[^"]*"|“[^”]*”/g, '');
  const sections = [
    ...[...rest.matchAll(/§(\d+)/g)].map((match) => match[1]),
    ...[...rest.matchAll(/(?:items?|defects?) (\d+)(?: and (\d+))?/g)].flatMap((match) =>
      match.slice(1).filter(Boolean),
    ),
    ...(/ rule\b/.test(rest) ? ['rule'] : []),
  ];
  return numbers.flatMap((number) =>
    sections.length === 0 ? [number] : sections.map((section) => `${number}§${section}`),
  );
}

const providerAnchorCache = new Map();
/** Whether a provider's wire contract has the anchor (checked once per provider). */
function providerHas(provider, anchor) {
  if (!providerAnchorCache.has(provider)) providerAnchorCache.set(provider, anchorsOf(providerDoc(provider)));
  return providerAnchorCache.get(provider).has(anchor);
}

/** Like {@link pick}, for the issue table: `PROVIDER#…` rules apply only where the provider is known. */
function pickIssue(rules, context, provider) {
  const usable = ([, anchor]) =>
    anchor === null ||
    !anchor.startsWith(`${PROVIDER}#`) ||
    (provider !== undefined && providerHas(provider, anchor.slice(PROVIDER.length + 1)));
  const resolved = (anchor) =>
    anchor?.startsWith(`${PROVIDER}#`) ? `${providerDoc(provider)}${anchor.slice(PROVIDER.length)}` : anchor;
  for (const scope of [context.line, context.around])
    for (const rule of rules) if (rule[0]?.test(scope) && usable(rule)) return resolved(rule[1]);
  const fallback = rules.find((rule) => rule[0] === null);
  return resolved(fallback[1]);
}

/** The anchors one citation cluster stands for (null entries: nothing to link), or undefined when unmapped. */
function citationAnchors(cluster, context, provider, unmapped) {
  const anchors = [];
  for (const atom of cluster.match(new RegExp(CITATION_ATOM, 'g'))) {
    const title = /"[^"]*"|“[^”]*”/.exec(atom)?.[0] ?? '';
    const atomContext = { line: `${title} ${context.line}`, around: `${title} ${context.around}` };
    for (const key of citationKeys(atom)) {
      if (key.startsWith('contract:')) {
        anchors.push(CONTRACTS.get(key.slice('contract:'.length)));
        continue;
      }
      const rules = ISSUES.get(key) ?? ISSUES.get(key.split('§')[0]);
      if (!rules) {
        unmapped.push(`issue ${key}`);
        return undefined;
      }
      anchors.push(pickIssue(rules, atomContext, provider));
    }
  }
  return [...new Set(anchors.filter(Boolean))];
}

/** The text before `index` with comment markers and an opening quote removed: what a reader sees. */
function proseBefore(text, index) {
  return text
    .slice(0, index)
    .replace(/^\s*(?:\/\*\*?|\/\/+|['"`])/, '')
    .replace(/\n[ \t]*(?:\*(?!\/)|\/\/+)?/g, ' ')
    .trim();
}

/** Where the sentence that starts at `from` ends (its full stop), or the end of the comment's prose. */
function sentenceEnd(text, from) {
  const stop = /(?<!\b(?:e\.g|i\.e|etc|vs))\.(?=\s|$|\*\/)/g;
  stop.lastIndex = from;
  const found = stop.exec(text);
  if (found) return found.index;
  const closing = /\s*(?:\*\/)?\s*$/.exec(text);
  return closing.index;
}

/**
 * Rewrites the issue and working-note citations of one comment or string literal (see the header for how each
 * placement reads). Works from the last citation to the first, so earlier offsets stay valid.
 */
function rewriteIssues(text, file) {
  const unmapped = [];
  const provider = providerOf(file, text);
  let out = text;
  for (const [pattern, replacement] of ISSUE_PHRASES) out = out.replace(pattern, replacement);
  const matches = [...out.matchAll(CITATION)].reverse();
  for (const match of matches) {
    const start = match.index;
    const end = start + match[0].length;
    const context = contextAt(out, start);
    const anchors = citationAnchors(match[0], context, provider, unmapped);
    if (anchors === undefined) continue;
    const replaced = placeCitation(out, start, end, anchors);
    if (replaced === undefined) unmapped.push(`"${match[0].replace(/\s+/g, ' ')}" (no placement reads well)`);
    else out = replaced;
  }
  return { text: out, unmapped };
}

/** The enclosing parenthesis of [start, end) within `text`: [open, close] or undefined. */
function enclosingParenthesis(text, start, end) {
  let depth = 0;
  let open = -1;
  for (let i = start - 1; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(') {
      if (depth === 0) {
        open = i;
        break;
      }
      depth--;
    }
  }
  if (open === -1) return undefined;
  depth = 0;
  for (let i = end; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') {
      if (depth === 0) return [open, i];
      depth--;
    }
  }
  return undefined;
}

/** `text` with the citation at [start, end) replaced by `anchors` where it reads well, else undefined. */
function placeCitation(text, start, end, anchors) {
  const splice = (from, to, insert) => text.slice(0, from) + insert + text.slice(to);
  const parenthesis = enclosingParenthesis(text, start, end);
  if (parenthesis) {
    const [open, close] = parenthesis;
    const pre = text.slice(open + 1, start);
    const post = text.slice(end, close);
    const fresh = anchors.filter((anchor) => !`${pre}${post}`.includes(anchor));
    const links = fresh.join(', ');
    const sepAfter = /^[ \t]*[,;:][ \t]*(?:\n[ \t]*(?:\*(?!\/)|\/\/+)?[ \t]*)?/.exec(post)?.[0];
    const sepBefore = /[,;][ \t]*(?:\n[ \t]*(?:\*(?!\/)|\/\/+)?[ \t]*)?$/.exec(pre)?.[0];
    if (pre.trim() === '' && post.trim() === '') {
      if (links) return splice(open, close + 1, `(${links})`);
      const space = /[ \t]+$/.exec(text.slice(0, open))?.[0].length ?? 0;
      return splice(open - space, close + 1, '');
    }
    if (pre.trim() === '' && sepAfter !== undefined)
      return links ? splice(start, end, links) : splice(start, end + sepAfter.length, '');
    if (sepBefore !== undefined && (post.trim() === '' || sepAfter !== undefined))
      return links ? splice(start, end, links) : splice(start - sepBefore.length, end, '');
  }
  const links = anchors.join(', ');
  const preposition = /[ \t]+(?:of|in|from|by)[ \t]+$/.exec(text.slice(0, start));
  if (preposition) return splice(start - preposition[0].length, end, links ? ` (${links})` : '');
  const before = proseBefore(text, start);
  if (before === '' || /[.!?]$/.test(before)) {
    const after = /^(?:[ \t]*[,:])?[ \t]*(?:for[ \t]+(?=Provider))?/.exec(text.slice(end))[0];
    let rest = text.slice(end + after.length);
    rest = rest.replace(/^[a-z]/, (letter) => letter.toUpperCase());
    const head = text.slice(0, start);
    const joined = head + rest;
    if (!links) return joined;
    const stop = sentenceEnd(joined, start);
    const sentence = joined.slice(start, stop);
    const fresh = anchors.filter((anchor) => !sentence.includes(anchor));
    if (fresh.length === 0) return joined;
    const at = stop;
    const trimmed = joined.slice(0, at).replace(/[ \t]+$/, '');
    return `${trimmed} (${fresh.join(', ')})${joined.slice(at)}`;
  }
  return undefined;
}

/**
 * Joins runs of `//` comments (consecutive lines) into one segment, so a sentence written over several line
 * comments is rewritten as one.
 */
function joinLineComments(text, segments) {
  const joined = [];
  for (const segment of segments) {
    const last = joined.at(-1);
    if (
      last?.kind === 'comment' &&
      segment.kind === 'comment' &&
      text.startsWith('//', last.start) &&
      text.startsWith('//', segment.start) &&
      /^[ \t]*\n[ \t]*$/.test(text.slice(last.end, segment.start))
    )
      last.end = segment.end;
    else joined.push({ ...segment });
  }
  return joined;
}

/** Comment lines are wrapped at this width (the docs links a rewrite adds must not leave 150-character lines). */
const WIDTH = 115;

/** The marker and indentation of a comment line: `  * `, `// `, `/** ` (then ` * ` for the lines after it). */
function linePrefix(line) {
  return /^[ \t]*(?:\/\*\*?|\*(?!\/)|\/\/+)?[ \t]*/.exec(line)[0];
}

/** The prefix of a line that continues `line`'s sentence: a list item's text is indented past its marker. */
function continuationPrefix(line) {
  const prefix = linePrefix(line);
  const opener = /^([ \t]*)\/\*\*?[ \t]*$/.exec(prefix);
  const base = opener ? `${opener[1]} * ` : prefix;
  const item = /^(?:[-*]|\d+\.)[ \t]+/.exec(line.slice(prefix.length));
  return item ? base + ' '.repeat(item[0].length) : base;
}

/** Where `line` can be broken so the head fits: the last space outside a code span, or -1. */
function breakPoint(line, start) {
  let best = -1;
  let inCode = false;
  for (let i = start; i < line.length; i++) {
    if (line[i] === '`') inCode = !inCode;
    else if (line[i] === ' ' && !inCode && i > start && i <= WIDTH && line[i - 1] !== ' ') best = i;
  }
  return best;
}

/**
 * Re-wraps the lines of a rewritten comment that a longer link pushed past {@link WIDTH}: the overflow moves to
 * the start of the next line of the same paragraph (or a new line), and so on down. Lines the rewrite did not
 * touch stay as they are; a comment that shares its line with code is left alone. A one-line block comment that
 * no longer fits opens onto several lines.
 */
function reflow(text, original, lead) {
  if (!/^[ \t]*$/.test(lead)) return text;
  const untouched = new Set(original.split('\n'));
  let lines = text.split('\n');
  if (lines.length === 1 && lead.length + text.length > WIDTH && /^\/\*\*.*\*\/$/.test(text)) {
    const body = text.replace(/^\/\*\*\s*/, '').replace(/\s*\*\/$/, '');
    lines = ['/**', `${lead} * ${body}`, `${lead} */`];
  }
  lines[0] = lead + lines[0];
  const touched = lines.map((line, index) => !untouched.has(index === 0 ? line.slice(lead.length) : line));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length <= WIDTH || !touched[i]) continue;
    const prefix = linePrefix(line);
    const cut = breakPoint(line, prefix.length);
    if (cut === -1) continue;
    const overflow = line.slice(cut + 1);
    lines[i] = line.slice(0, cut);
    const next = lines[i + 1];
    const nextPrefix = next === undefined ? '' : linePrefix(next);
    const nextText = next === undefined ? '' : next.slice(nextPrefix.length);
    const joins =
      next !== undefined &&
      nextText.trim() !== '' &&
      !/^(?:\*\/|[-*]\s|\d+\.\s|@|\||```)/.test(nextText) &&
      nextPrefix.replace(/[ \t]+$/, '') === continuationPrefix(line).replace(/[ \t]+$/, '');
    if (joins) {
      lines[i + 1] = `${nextPrefix}${overflow} ${nextText}`;
      touched[i + 1] = true;
    } else {
      lines.splice(i + 1, 0, `${continuationPrefix(line)}${overflow}`);
      touched.splice(i + 1, 0, true);
    }
  }
  lines[0] = lines[0].slice(lead.length);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Checking.

/** Old-style references left in a comment (or, for strings, only design/spec and issue citations). */
function oldReferences(text, kind) {
  const found = [...text.matchAll(new RegExp(SECTION_REF.source, 'g'))].map((match) => match[0]);
  found.push(...[...text.matchAll(ISSUE_LEFTOVER)].map((match) => match[0]));
  if (kind === 'comment') {
    found.push(...[...text.matchAll(new RegExp(WIRE_PHRASE.source, 'g'))].map((match) => match[0]));
    found.push(...[...text.matchAll(SHARED_PATH)].map((match) => match[0]));
    found.push(...[...text.matchAll(SHARED_OTHER)].map((match) => match[0]));
  }
  return found;
}

const anchorCache = new Map();

/**
 * The anchors GitHub gives the headings of a Markdown file (path relative to the root): lower case, punctuation
 * dropped, spaces to hyphens, a repeated slug suffixed -1, -2, …; headings inside fenced code are not headings.
 * Undefined when the file does not exist.
 */
function anchorsOf(path) {
  if (anchorCache.has(path)) return anchorCache.get(path);
  let text;
  try {
    text = readFileSync(join(ROOT, path), 'utf8');
  } catch {
    anchorCache.set(path, undefined);
    return undefined;
  }
  const anchors = new Set();
  const seen = new Map();
  let fence;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  anchorCache.set(path, anchors);
  return anchors;
}

/** `path#anchor` links in the text of a comment or string: paths from the repository root. */
const ROOT_LINK = /(?<![\w./-])((?:[\w.-]+\/)*[\w.-]+\.md)#([\w-]+)/g;

/** Why a link to `path#anchor` (path relative to the root) is dead, or undefined when its heading exists. */
function deadLink(path, anchor) {
  const anchors = anchorsOf(path);
  if (anchors === undefined) return 'no such file';
  if (!anchors.has(anchor)) return 'no such heading';
  return undefined;
}

/**
 * The files with this ending a reader meets (relative to the root): Markdown (READMEs, docs, changesets) or JSON
 * (package descriptions, fixtures' sources), outside node_modules and build output.
 */
function filesEndingWith(ending) {
  const found = [];
  const walk = (folder, deep) => {
    const absolute = join(ROOT, folder);
    if (!isDirectory(absolute)) return;
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const path = folder === '.' ? entry.name : join(folder, entry.name);
      if (entry.isDirectory()) {
        if (deep && !SKIPPED_DIRECTORIES.has(entry.name) && !entry.name.startsWith('.')) walk(path, deep);
      } else if (entry.name.endsWith(ending)) found.push(path);
    }
  };
  walk('.', false);
  walk('.changeset', false);
  for (const folder of ['docs', 'packages', 'tests', 'tooling', 'examples']) walk(folder, true);
  return found;
}

/**
 * Problems of one Markdown or JSON file: issue citations, and links (relative Markdown links, or `docs/….md#…`
 * from the root) to headings that do not exist.
 */
function fileProblems(file) {
  const problems = [];
  const text = readFileSync(join(ROOT, file), 'utf8');
  const lineAt = (index) => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(ISSUE_LEFTOVER))
    problems.push(`${file}:${lineAt(match.index)}: cites ${match[0].replace(/\s+/g, ' ')}`);
  const linked = new Set();
  for (const match of text.matchAll(/\]\(([^)\s]*?)#([^)\s]*)\)/g)) {
    const [, target, anchor] = match;
    linked.add(match.index + 2);
    if (/^[a-z]+:/i.test(target) || (target !== '' && !target.endsWith('.md'))) continue;
    const path = target === '' ? file : normalize(join(dirname(file), target));
    const why = deadLink(path, anchor);
    if (why) problems.push(`${file}:${lineAt(match.index)}: ${target}#${anchor}: ${why}`);
  }
  for (const match of text.matchAll(ROOT_LINK)) {
    if (linked.has(match.index) || !match[1].startsWith('docs/')) continue;
    const why = deadLink(match[1], match[2]);
    if (why) problems.push(`${file}:${lineAt(match.index)}: ${match[0]}: ${why}`);
  }
  return problems;
}

/** Every anchor the tables name must exist in the docs. */
function missingAnchors() {
  const missing = [];
  const architecture = anchorsOf(ARCHITECTURE);
  for (const table of [DESIGN, SPEC])
    for (const rules of table.values())
      for (const [, anchor] of rules)
        if (!architecture.has(anchor)) missing.push(`${ARCHITECTURE}#${anchor}`);
  const issueAnchors = [...ISSUES.values()].flatMap((rules) => rules.map(([, anchor]) => anchor));
  for (const link of [...issueAnchors, ...CONTRACTS.values()]) {
    if (link === null) continue;
    const [path, anchor] = link.split('#');
    const paths = path === PROVIDER ? Object.keys(WIRE_SECTIONS).map(providerDoc) : [path];
    // A provider anchor must exist in at least one wire contract; per file it is used only where it exists.
    if (paths.every((doc) => deadLink(doc, anchor) !== undefined)) missing.push(link);
  }
  if (!architecture.has(SPEC_RANGE_ANCHOR)) missing.push(`${ARCHITECTURE}#${SPEC_RANGE_ANCHOR}`);
  for (const [provider, sections] of Object.entries(WIRE_SECTIONS)) {
    const anchors = anchorsOf(providerDoc(provider));
    const named = [...sections.values(), ...WIRE_TOPICS[provider].map(([, anchor]) => anchor)].filter(
      Boolean,
    );
    for (const anchor of named) if (!anchors.has(anchor)) missing.push(`${providerDoc(provider)}#${anchor}`);
  }
  return [...new Set(missing)];
}

// ---------------------------------------------------------------------------------------------------------------
// Main.

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

function main(argv) {
  const mode = argv.find((arg) => ['--dry-run', '--write', '--check'].includes(arg));
  if (!mode) {
    console.error('usage: repoint-comments.mjs --dry-run | --write | --check');
    return 2;
  }
  const missing = missingAnchors();
  if (missing.length > 0) {
    console.error(
      `repoint-comments: the mapping names anchors the docs do not have:\n  ${missing.join('\n  ')}`,
    );
    return 1;
  }
  let references = 0;
  let changedFiles = 0;
  const leftovers = [];
  const deadLinks = [];
  const unmappedAll = [];
  for (const root of scopeRoots())
    for (const file of sourceFiles(root)) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      if (!/design|spec|wire contract|shared\/|issues?\s|Contract [A-C]|\.md#/i.test(source)) continue;
      let output = '';
      let cursor = 0;
      for (const segment of joinLineComments(source, segmentsOf(source))) {
        const original = source.slice(segment.start, segment.end);
        if (mode === '--check')
          for (const link of original.matchAll(ROOT_LINK)) {
            const why = deadLink(link[1], link[2]);
            if (why)
              deadLinks.push(`${file}:${lineOf(source, segment.start + link.index)}: ${link[0]}: ${why}`);
          }
        const old = oldReferences(original, segment.kind);
        if (old.length === 0) continue;
        if (mode === '--check') {
          let from = 0;
          for (const reference of old) {
            const at = original.indexOf(reference, from);
            from = at === -1 ? from : at + reference.length;
            const line = lineOf(source, segment.start + Math.max(0, at));
            leftovers.push(`${file}:${line}: ${reference.replace(/\s+/g, ' ')}`);
          }
          continue;
        }
        const repointed = rewrite(original, file, { stringsOnly: segment.kind === 'string' });
        const cited = rewriteIssues(repointed.text, file);
        const lead = source.slice(source.lastIndexOf('\n', segment.start - 1) + 1, segment.start);
        const text = segment.kind === 'comment' ? reflow(cited.text, original, lead) : cited.text;
        const unmapped = [...repointed.unmapped, ...cited.unmapped];
        unmappedAll.push(...unmapped.map((what) => `${file}:${lineOf(source, segment.start)}: ${what}`));
        if (text === original) continue;
        references += old.length;
        output += source.slice(cursor, segment.start) + text;
        cursor = segment.end;
        if (mode === '--dry-run') {
          const line = lineOf(source, segment.start);
          const before = original.split('\n');
          const after = text.split('\n');
          let head = 0;
          while (head < before.length && before[head] === after[head]) head++;
          let tail = 0;
          while (
            tail < before.length - head &&
            tail < after.length - head &&
            before[before.length - 1 - tail] === after[after.length - 1 - tail]
          )
            tail++;
          console.log(`--- ${file}:${line + head}`);
          for (const removed of before.slice(head, before.length - tail)) console.log(`- ${removed}`);
          for (const added of after.slice(head, after.length - tail)) console.log(`+ ${added}`);
        }
      }
      if (cursor === 0) continue;
      changedFiles++;
      output += source.slice(cursor);
      if (mode === '--write') writeFileSync(join(ROOT, file), output);
    }
  if (mode === '--check') {
    const markdown = [
      ...filesEndingWith('.md').flatMap(fileProblems),
      ...filesEndingWith('.json').flatMap(fileProblems),
    ];
    if (leftovers.length === 0 && deadLinks.length === 0 && markdown.length === 0) {
      console.log(
        'repoint-comments: no comment, string or Markdown file cites the design, the spec, a wire contract outside docs/ or an issue, and every docs link resolves.',
      );
      return 0;
    }
    if (leftovers.length > 0)
      console.error(
        `repoint-comments: ${leftovers.length} old-style reference(s); run --write:\n  ${leftovers.join('\n  ')}`,
      );
    if (deadLinks.length > 0)
      console.error(
        `repoint-comments: ${deadLinks.length} link(s) to a heading that does not exist:\n  ${deadLinks.join('\n  ')}`,
      );
    if (markdown.length > 0)
      console.error(
        `repoint-comments: ${markdown.length} problem(s) in Markdown or JSON files (fix by hand):\n  ${markdown.join('\n  ')}`,
      );
    return 1;
  }
  console.log(
    `repoint-comments: ${references} reference(s) in ${changedFiles} file(s) ${mode === '--write' ? 'rewritten' : 'would be rewritten'}.`,
  );
  if (mode === '--write' && changedFiles > 0)
    console.log(
      'repoint-comments: a longer test title can change how a call is laid out: run `pnpm exec biome format --write .`.',
    );
  if (unmappedAll.length > 0) {
    console.error(`repoint-comments: no mapping for:\n  ${unmappedAll.join('\n  ')}`);
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
