// Writes what a real CLI sent through Conduit, what the upstream fake answered, and what the CLI
// got back, as a fixture that a vitest test replays without the CLI (see
// packages/conformance/src/claude-code-replay.test.ts).
import { writeFileSync } from "node:fs";

// Secrets and per-connection headers: the key is the replaying test's own; fetch sets the rest.
const DROPPED_HEADERS = new Set(["x-api-key", "authorization", "host", "content-length", "connection", "accept-encoding"]);

/** The SSE event names of a streamed body, or null when the answer is not a stream. */
function eventsOf(contentType, body) {
  if (!contentType?.startsWith("text/event-stream")) return null;
  return [...body.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
}

/**
 * `exchanges` come from the recording tap (client side, in order); `upstreamRequests` from the
 * fake (upstream side, in order). Calls that reached the upstream are paired with its answers.
 *
 * @example
 * recordSession("packages/conformance/src/fixtures/claude-code-session.json", "claude-code", tap.exchanges, fake.requests);
 */
export function recordSession(file, client, exchanges, upstreamRequests) {
  const upstream = [...upstreamRequests];
  const recorded = exchanges.map((call) => {
    const headers = Object.fromEntries(Object.entries(call.requestHeaders).filter(([name]) => !DROPPED_HEADERS.has(name)));
    const reachedUpstream = call.status === 200 && call.url.startsWith("/v1/messages");
    const answer = reachedUpstream ? upstream.shift() : undefined;
    const contentType = call.responseHeaders?.["content-type"] ?? null;
    return {
      method: call.method,
      path: call.url,
      headers,
      body: call.requestBody ?? "",
      upstream: answer ? { path: answer.url, status: answer.status, contentType: answer.contentType, body: answer.sent } : null,
      answer: { status: call.status, contentType, events: eventsOf(contentType, call.responseBody ?? "") },
    };
  });
  writeFileSync(file, `${JSON.stringify({ client, recordedBy: "pnpm test:real-clients -- --record <file>", exchanges: recorded }, null, 2)}\n`);
}
