// Writes what a real CLI sent through Conduit, what the upstream fake answered, and what the CLI
// got back, as a fixture that a vitest test replays without the CLI (see
// packages/conformance/src/claude-code-replay.test.ts and codex-responses-replay.test.ts).
import { writeFileSync } from "node:fs";

// Secrets and per-connection headers: the key is the replaying test's own; fetch sets the rest.
const DROPPED_HEADERS = new Set(["x-api-key", "authorization", "host", "content-length", "connection", "accept-encoding"]);

/** The SSE event names of a streamed body, or null when the answer is not a stream. */
function eventsOf(contentType, body) {
  if (!contentType?.startsWith("text/event-stream")) return null;
  return [...body.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
}

/**
 * One session: `exchanges` come from the recording tap (client side), `upstreamRequests` from the
 * fake. Calls that reached the upstream are paired with its answer: by body for the Messages
 * passthrough (it forwards the bytes unchanged; concurrent calls may arrive in another order), in
 * order for a translated surface (`/v1/responses` → Messages, one call at a time), whose upstream
 * request body is then kept too.
 *
 * @example
 * const session = sessionOf(tap.exchanges, fake.requests);
 */
export function sessionOf(exchanges, upstreamRequests, { translated = false } = {}) {
  const upstream = [...upstreamRequests];
  return exchanges.map((call) => {
    const headers = Object.fromEntries(Object.entries(call.requestHeaders).filter(([name]) => !DROPPED_HEADERS.has(name)));
    const reachedUpstream = call.status === 200 && call.method === "POST";
    const index = !reachedUpstream ? -1 : translated ? 0 : upstream.findIndex((request) => request.body === call.requestBody);
    const answer = index >= 0 ? upstream.splice(index, 1)[0] : undefined;
    const contentType = call.responseHeaders?.["content-type"] ?? null;
    return {
      method: call.method,
      path: call.url,
      headers,
      body: call.requestBody ?? "",
      upstream: answer
        ? {
            path: answer.url,
            ...(translated ? { requestBody: answer.body } : {}),
            status: answer.status,
            contentType: answer.contentType,
            body: answer.sent,
          }
        : null,
      answer: { status: call.status, contentType, events: eventsOf(contentType, call.responseBody ?? "") },
    };
  });
}

/**
 * Writes sessions (name → sessionOf(...)) as a fixture file.
 *
 * @example
 * writeSessions("fixtures/claude-code-sessions.json", "Claude Code 2.1.197", { "tool-turn": session });
 */
export function writeSessions(file, client, sessions) {
  writeFileSync(file, `${JSON.stringify({ client, recordedBy: "pnpm test:real-clients --record <file>", sessions }, null, 2)}\n`);
}
