// Recorded provider fixtures must never carry a live credential: a key pasted from a dashboard or a token
// copied out of a real exchange would be published with every package tarball and every clone.
// `findCredentials` flags what looks like one; `scanFixtures` runs it over every `test/fixtures` folder.
// Values a provider publishes as documentation examples (not live) are listed, with the reason, in
// `published-example-credentials.json` beside this file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Key names whose value is a credential. */
const CREDENTIAL_NAME =
  /^(?:.*secret.*|.*password.*|passwd|.*token|access_?token|refresh_?token|api_?key|apikey|client_?secret|private_?key|authorization|credentials?)$/i;

/** Words that mark a value as made up for tests or documentation. */
const PLACEHOLDER =
  /test|example|sample|placeholder|dummy|fake|redacted|sandbox|simulat|xxx|changeme|your|<|\*/i;

/** Shapes that are credentials wherever they appear. */
const CREDENTIAL_SHAPES = [
  { what: 'a JSON Web Token', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { what: 'a private key', pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/g },
  { what: 'a live or production key', pattern: /\b[A-Za-z]{1,6}_(?:live|prod)_[A-Za-z0-9]{6,}/gi },
  { what: 'an AWS access key', pattern: /\bAKIA[0-9A-Z]{16}\b/g },
  { what: 'a bearer token', pattern: /\bBearer\s+([A-Za-z0-9._~+/=-]{16,})/g, group: 1 },
  { what: 'a Basic credential', pattern: /\bBasic\s+([A-Za-z0-9+/=]{8,})/g, group: 1, basic: true },
];

function isPlaceholder(value) {
  return PLACEHOLDER.test(value);
}

function basicSecret(encoded) {
  try {
    const decoded = atob(encoded);
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : decoded;
  } catch {
    return encoded;
  }
}

function* namedValues(value, name = '') {
  if (typeof value === 'string') yield [name, value];
  else if (Array.isArray(value)) for (const item of value) yield* namedValues(item, name);
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) yield* namedValues(item, key);
}

/** Every `name=value` / `name: value` pair of a text that is not JSON (form bodies, header lists). */
function* textPairs(text) {
  for (const match of text.matchAll(/([A-Za-z_][\w-]*)["']?\s*[=:]\s*["']?([^"'&\s,;]+)/g)) {
    yield [match[1], match[2]];
  }
}

/**
 * The credential-looking values of one fixture's text: values under credential names that are not
 * placeholders, and credential shapes (tokens, keys) anywhere. `allowed` holds published example values.
 * @param {string} text
 * @param {ReadonlySet<string>} [allowed]
 * @returns {{ what: string, value: string }[]}
 */
export function findCredentials(text, allowed = new Set()) {
  const found = [];
  const flag = (what, value) => {
    if (!allowed.has(value) && !found.some((hit) => hit.value === value)) found.push({ what, value });
  };
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const pairs = parsed === undefined ? textPairs(text) : namedValues(parsed);
  for (const [name, value] of pairs) {
    if (CREDENTIAL_NAME.test(name) && value.length >= 8 && !isPlaceholder(value)) {
      flag(`a value under "${name}"`, value);
    }
  }
  for (const shape of CREDENTIAL_SHAPES) {
    for (const match of text.matchAll(shape.pattern)) {
      const value = match[shape.group ?? 0];
      const secret = shape.basic ? basicSecret(value) : value;
      if (!isPlaceholder(secret)) flag(shape.what, value);
    }
  }
  return found;
}

function* fixtureFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* fixtureFiles(path);
    else yield path;
  }
}

/**
 * Scans every `packages/<name>/test/fixtures` folder below `root`.
 * @param {string} root the repository root
 * @returns {{ file: string, what: string, value: string }[]}
 */
export function scanFixtures(root) {
  const allowList = JSON.parse(
    readFileSync(new URL('./published-example-credentials.json', import.meta.url), 'utf8'),
  );
  const allowed = new Set(allowList.map((entry) => entry.value));
  const hits = [];
  const packagesDir = join(root, 'packages');
  for (const pkg of readdirSync(packagesDir)) {
    const fixtures = join(packagesDir, pkg, 'test', 'fixtures');
    if (!existsSync(fixtures) || !statSync(fixtures).isDirectory()) continue;
    for (const file of fixtureFiles(fixtures)) {
      for (const hit of findCredentials(readFileSync(file, 'utf8'), allowed)) {
        hits.push({ file: relative(root, file), ...hit });
      }
    }
  }
  return hits;
}
