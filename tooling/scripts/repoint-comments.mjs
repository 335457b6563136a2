#!/usr/bin/env node
// Repoints comments that cite documents outside the repository ("design §6", "spec §2", "wire contract
// "Webhooks"", `shared/providers/provider-r.md`) at the repository's own docs: docs/architecture.md#<anchor> and
// docs/providers/provider-<x>.md#<anchor> (issue 13 item 6). No dependencies.
//
//   node tooling/scripts/repoint-comments.mjs --dry-run   print every change, write nothing
//   node tooling/scripts/repoint-comments.mjs --write     apply the changes
//   node tooling/scripts/repoint-comments.mjs --check     exit 1 if any old-style reference remains
//
// Scope: packages/*/src, packages/*/test, tests/*, examples/, tooling/ (TypeScript and JavaScript files; no
// node_modules, dist, reports). Inside comments every citation is rewritten. Inside string literals only
// "design §N" / "spec §N" citations are (they are never prose); the phrase "wire contract" in a string (a test
// title, an error message) is ordinary prose and stays. Every anchor the tables below name is checked against the
// headings of the docs, so a renamed heading fails the run instead of leaving a dead link.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));
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
    } else if (EXTENSIONS.test(entry.name) && path !== SELF) yield path;
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
// Checking.

/** Old-style references left in a comment (or, for strings, only design/spec citations). */
function oldReferences(text, kind) {
  const found = [...text.matchAll(new RegExp(SECTION_REF.source, 'g'))].map((match) => match[0]);
  if (kind === 'comment') {
    found.push(...[...text.matchAll(new RegExp(WIRE_PHRASE.source, 'g'))].map((match) => match[0]));
    found.push(...[...text.matchAll(SHARED_PATH)].map((match) => match[0]));
    found.push(...[...text.matchAll(SHARED_OTHER)].map((match) => match[0]));
  }
  return found;
}

/** GitHub-style heading slugs of a Markdown file. */
function anchorsOf(path) {
  const anchors = new Set();
  for (const line of readFileSync(join(ROOT, path), 'utf8').split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    anchors.add(
      heading[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return anchors;
}

/** Every anchor the tables name must exist in the docs. */
function missingAnchors() {
  const missing = [];
  const architecture = anchorsOf(ARCHITECTURE);
  for (const table of [DESIGN, SPEC])
    for (const rules of table.values())
      for (const [, anchor] of rules)
        if (!architecture.has(anchor)) missing.push(`${ARCHITECTURE}#${anchor}`);
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
  const unmappedAll = [];
  for (const root of scopeRoots())
    for (const file of sourceFiles(root)) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      if (!/design|spec|wire contract|shared\//i.test(source)) continue;
      let output = '';
      let cursor = 0;
      for (const segment of segmentsOf(source)) {
        const original = source.slice(segment.start, segment.end);
        const old = oldReferences(original, segment.kind);
        if (old.length === 0) continue;
        if (mode === '--check') {
          for (const reference of old)
            leftovers.push(`${file}:${lineOf(source, segment.start)}: ${reference.replace(/\s+/g, ' ')}`);
          continue;
        }
        const { text, unmapped } = rewrite(original, file, { stringsOnly: segment.kind === 'string' });
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
    if (leftovers.length === 0) {
      console.log(
        'repoint-comments: no comment cites the design, the spec or a wire contract outside docs/.',
      );
      return 0;
    }
    console.error(
      `repoint-comments: ${leftovers.length} old-style reference(s); run --write:\n  ${leftovers.join('\n  ')}`,
    );
    return 1;
  }
  console.log(
    `repoint-comments: ${references} reference(s) in ${changedFiles} file(s) ${mode === '--write' ? 'rewritten' : 'would be rewritten'}.`,
  );
  if (unmappedAll.length > 0) {
    console.error(`repoint-comments: no mapping for:\n  ${unmappedAll.join('\n  ')}`);
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
