// The client-compatibility suite: the libraries applications are written against, each pointed at a
// Sluice gateway by base URL and key only, each through the same cases. Prints one JSON document on
// stdout ({ node, versions, results: [{ library, case, ok, attempts, ms, detail | error }] }) and a
// table on stderr. Exits 1 when a case did not behave as docs/CLIENTS.md says it does.
//
//   SLUICE_BASE_URL=http://127.0.0.1:8080 node run.mjs      # against `bin/sluice demo`
//
// Keys (the demo's by default): SLUICE_KEY (any profile, no limit of its own), SLUICE_KEY_BURST (one request a second),
// SLUICE_KEY_SPENT (one request a day). Profiles: fast-chat (OpenAI), claude (Anthropic), gemini
// (Gemini), gemini-embed (Gemini embeddings). SLUICE_ONLY=<library> runs one library.

import { readFileSync } from 'node:fs';
import { libraries } from './libraries.mjs';

// The AI SDK prints its warnings on stdout, where the JSON goes.
globalThis.AI_SDK_LOG_WARNINGS = false;

const BASE = (process.env.SLUICE_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const KEYS = {
  main: process.env.SLUICE_KEY ?? 'sk-demo-clients',
  burst: process.env.SLUICE_KEY_BURST ?? 'sk-demo-burst',
  spent: process.env.SLUICE_KEY_SPENT ?? 'sk-demo-spent',
};

// Every library reaches the gateway through the global fetch: counting its calls counts a case's
// attempts, retries included.
let attempts = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = (...args) => {
  attempts++;
  return realFetch(...args);
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status, codes and hints of a library's error, wherever the library keeps them. */
export function describeError(e) {
  const status = e?.status ?? e?.statusCode ?? e?.response?.status ?? e?.cause?.status ?? e?.lastError?.statusCode
    ?? statusInMessage(e?.message);
  const headers = e?.headers ?? e?.responseHeaders ?? e?.response?.headers ?? e?.lastError?.responseHeaders;
  const header = (name) => (typeof headers?.get === 'function' ? headers.get(name) : headers?.[name]) ?? undefined;
  const body = e?.error ?? e?.responseBody ?? e?.lastError?.responseBody ?? e?.message;
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? {});
  return {
    name: e?.name ?? e?.constructor?.name,
    status,
    retryAfterMs: header('retry-after-ms'),
    retryAfter: header('retry-after'),
    shouldRetry: header('x-should-retry'),
    rateLimitExceeded: /rate_limit_exceeded/.test(text),
    insufficientQuota: /insufficient_quota/.test(text),
    rateLimitError: /rate_limit_error/.test(text),
    resourceExhausted: /RESOURCE_EXHAUSTED/.test(text),
    retryInfo: /RetryInfo/.test(text),
    message: String(e?.message ?? e).slice(0, 200),
  };
}

function statusInMessage(message) {
  const m = /\b(4\d\d|5\d\d)\b/.exec(String(message ?? ''));
  return m ? Number(m[1]) : undefined;
}

function version(pkg) {
  try {
    return JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url))).version;
  } catch {
    return 'missing';
  }
}

/** Waits until the burst key has its one request back (it refills one a second). */
async function burstRefilled() {
  await sleep(1100);
}

const results = [];

async function run(library, name, fn, expected) {
  attempts = 0;
  const start = Date.now();
  let entry;
  try {
    const detail = await fn();
    entry = { library, case: name, ok: true, attempts, ms: Date.now() - start, detail };
  } catch (e) {
    entry = { library, case: name, ok: false, attempts, ms: Date.now() - start, error: describeError(e) };
  }
  if (expected) {
    // The expectation decides: some cases expect the library to fail (a refusal it does not retry).
    const problem = expected(entry);
    entry.ok = problem == null;
    if (problem) {
      entry.problem = problem;
    }
  }
  results.push(entry);
  process.stderr.write(`${entry.ok ? 'ok  ' : 'FAIL'} ${library.padEnd(28)} ${name.padEnd(10)} ${String(entry.attempts).padStart(2)} `
    + `attempt(s) ${String(entry.ms).padStart(6)} ms ${entry.problem ?? ''}${entry.ok ? '' : ' ' + JSON.stringify(entry.error ?? entry.detail)}\n`);
}

// The spent key's one request of the day, so that its every later request is refused.
await realFetch(`${BASE}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${KEYS.spent}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'fast-chat', max_tokens: 4, messages: [{ role: 'user', content: 'spend' }] }),
}).then((r) => r.text());

const only = process.env.SLUICE_ONLY;
for (const lib of libraries({ base: BASE, keys: KEYS })) {
  if (only && lib.name !== only) {
    continue;
  }
  await run(lib.name, 'plain', lib.plain, notEmpty);
  await run(lib.name, 'stream', lib.stream, (r) => notEmpty(r) ?? (r.detail.chunks > 1 ? null : 'a single chunk'));
  await run(lib.name, 'tools', lib.tools, (r) => notEmpty(r)
    ?? (JSON.stringify(r.detail.arguments) === JSON.stringify({ city: 'sluice', days: 1 }) ? null
      : `arguments ${JSON.stringify(r.detail.arguments)}`));
  for (const extra of lib.extras ?? []) {
    await run(lib.name, extra.name, extra.fn, extra.expected ?? notEmpty);
  }
  await burstRefilled();
  await run(lib.name, '429', () => refused(lib), (r) => expectRefusal(r, lib.family));
  await burstRefilled();
  await run(lib.name, 'retry', () => retried(lib), (r) => expectRetry(r, lib.retries));
  await run(lib.name, 'no-retry', () => notRetried(lib), (r) => expectNoRetry(r, lib));
}

/** A local 429 with retries off: which error the library raises, and what it can read from it. */
async function refused(lib) {
  for (let i = 0; i < 4; i++) {
    try {
      await lib.once(KEYS.burst, 0);
    } catch (e) {
      return describeError(e);
    }
  }
  throw new Error('the burst key was never refused');
}

/** The same 429 with the library's default retries: does it wait for the hint and then succeed? */
async function retried(lib) {
  await lib.once(KEYS.burst, 0);
  attempts = 0;
  const started = Date.now();
  const text = await lib.once(KEYS.burst, undefined);
  return { text, attempts, waitedMs: Date.now() - started };
}

/** A refusal no retry can help (the spent daily cap): does the library stop at once? */
async function notRetried(lib) {
  try {
    await lib.once(KEYS.spent, lib.noRetryMaxRetries);
  } catch (e) {
    return describeError(e);
  }
  throw new Error('the spent key was not refused');
}

function notEmpty(r) {
  if (!r.ok) {
    return 'failed';
  }
  return typeof r.detail?.text === 'string' && r.detail.text.trim().length > 0 ? null : 'no text';
}

function expectRefusal(r, family) {
  const d = r.detail;
  if (!r.ok || d.status !== 429) {
    return `status ${d?.status ?? r.error?.status} (expected: 429)`;
  }
  const code = { openai: d.rateLimitExceeded, anthropic: d.rateLimitError, gemini: d.resourceExhausted && d.retryInfo }[family];
  return code ? null : `the ${family} rate-limit code is missing`;
}

function expectRetry(r, retries) {
  if (retries) {
    return r.ok && r.detail.attempts >= 2 ? null : 'did not retry to success';
  }
  return !r.ok && r.error.status === 429 && r.attempts === 1 ? null : 'expected the 429 after one attempt (no retries by default)';
}

function expectNoRetry(r, lib) {
  const d = r.detail;
  if (!r.ok || d.status !== 429 || d.retryAfterMs !== undefined || d.retryAfter !== undefined) {
    return `status ${d?.status ?? r.error?.status}, retry-after-ms ${d?.retryAfterMs} (expected: 429 with no hint)`;
  }
  return r.attempts === lib.noRetryAttempts ? null : `${r.attempts} attempts (expected: ${lib.noRetryAttempts})`;
}

const doc = {
  node: process.version,
  versions: Object.fromEntries(['openai', '@anthropic-ai/sdk', '@google/genai', 'ai', '@ai-sdk/openai',
    '@ai-sdk/anthropic', '@ai-sdk/google', '@langchain/openai', '@langchain/anthropic', '@langchain/core']
    .map((p) => [p, version(p)])),
  results,
};
process.stdout.write(JSON.stringify(doc) + '\n');
const failed = results.filter((r) => !r.ok).length;
process.stderr.write(`${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
