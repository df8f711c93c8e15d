import { Agent as HttpAgent, type IncomingMessage, type ClientRequest, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { KeyLease, KeyOutcome, KeySource } from "@conduit-ai/server-core";
import { APICallError } from "ai";

/** Largest error body read from a failed call (the message is in the first bytes). */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * An OpenAI-compatible Chat Completions server (or the Gemini API, with its own path and key
 * header: generation/gemini-stream-engine.ts) that Conduit streams from directly, over
 * `node:http(s)` with one keep-alive agent per provider. Streams avoid `fetch` and web
 * streams on purpose: measured per concurrent stream, undici's `fetch` holds ≈ 33 KB of heap,
 * the AI SDK provider's `doStream` pipeline ≈ 88 KB and `streamText` ≈ 214 KB, against
 * ≈ 7 KB for a `node:http` request (tools/bench `bench:provider-streams`).
 */
export class ChatCompletionsEndpoint {
  readonly url: URL;
  readonly #headers: Record<string, string>;
  readonly #agent: HttpAgent;
  readonly #send: typeof httpRequest;
  readonly #credential: (key: string) => [name: string, value: string];
  /** Where each request's key comes from (`Authorization: Bearer <key>` unless `credentialHeader` says otherwise); none for a server without keys. */
  readonly keys: KeySource | undefined;

  /**
   * `path` is appended to `baseURL` (the Chat Completions path unless given; a call may name its
   * own URL under the same origin); `credentialHeader` sends the key (Gemini's `x-goog-api-key`).
   */
  constructor(options: {
    baseURL: string;
    keys?: KeySource;
    headers?: Record<string, string>;
    path?: string;
    credentialHeader?: (key: string) => [name: string, value: string];
  }) {
    this.keys = options.keys;
    this.#credential = options.credentialHeader ?? ((key) => ["authorization", `Bearer ${key}`]);
    this.url = new URL(`${options.baseURL.replace(/\/+$/, "")}${options.path ?? "/chat/completions"}`);
    const https = this.url.protocol === "https:";
    this.#send = https ? httpsRequest : httpRequest;
    this.#agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.#headers = {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...options.headers,
    };
  }

  /**
   * Sends one streaming call. Resolves with the `200` response (its body not read yet) and
   * the request, so the caller can destroy both; rejects with the AI SDK's `APICallError`
   * for any other status (so `mapProviderError` and the retry rule treat it as they treat the
   * SDK's own), or with the network error. `traceHeaders` name the model call's span upstream;
   * `lease` is the key to send (from `keys`), told how the request went; `url` replaces the
   * endpoint's own (Gemini names the model in the path).
   */
  post(
    body: Record<string, unknown>,
    traceHeaders: Record<string, string> = {},
    lease?: KeyLease,
    url: URL = this.url,
  ): { request: ClientRequest; response: Promise<IncomingMessage> } {
    const json = JSON.stringify(body);
    const credential = lease ? this.#credential(lease.key) : undefined;
    const request = this.#send(url, {
      method: "POST",
      agent: this.#agent,
      headers: {
        ...this.#headers,
        ...traceHeaders,
        ...(credential ? { [credential[0]]: credential[1] } : {}),
        "content-length": Buffer.byteLength(json),
      },
    });
    // Reported once: an error after the response (a stream cut later) is not the key's doing.
    let report = lease ? (outcome: KeyOutcome) => lease.report(outcome) : undefined;
    const reportOnce = (outcome: KeyOutcome) => {
      report?.(outcome);
      report = undefined;
    };
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      request.once("error", (error) => {
        reportOnce({});
        reject(error);
      });
      request.once("response", (incoming) => {
        const status = incoming.statusCode ?? 0;
        reportOnce({ status, headers: new Headers(headerRecord(incoming)) });
        if (status >= 200 && status < 300) {
          resolve(incoming);
          return;
        }
        readErrorBody(incoming).then(
          // Some vendors echo the key they refused: it never reaches the caller.
          (text) => reject(callError(url.href, body, status, incoming, lease ? text.replaceAll(lease.key, "[redacted]") : text)),
          (error: unknown) => reject(error),
        );
      });
    });
    request.end(json);
    return { request, response };
  }

  /** Closes idle keep-alive sockets (the runtime is closing). */
  close(): void {
    this.#agent.destroy();
  }
}

async function readErrorBody(incoming: IncomingMessage): Promise<string> {
  let text = "";
  incoming.setEncoding("utf8");
  for await (const part of incoming) {
    text += part as string;
    if (text.length >= MAX_ERROR_BODY) {
      incoming.destroy();
      break;
    }
  }
  return text;
}

function headerRecord(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** The server's own message when it sent the usual `{"error":{"message"}}`, else the status. */
function errorMessage(status: number, text: string, statusText: string | undefined): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === "string" && message !== "") return message;
  } catch {
    // Not JSON: fall through to the status line.
  }
  return statusText ? `${status} ${statusText}` : `HTTP ${status}`;
}

function callError(url: string, body: Record<string, unknown>, status: number, incoming: IncomingMessage, text: string): APICallError {
  return new APICallError({
    message: errorMessage(status, text, incoming.statusMessage),
    url,
    requestBodyValues: body,
    statusCode: status,
    responseHeaders: headerRecord(incoming),
    responseBody: text,
    // The AI SDK's rule: timeouts, conflicts, rate limits and server errors may succeed later.
    isRetryable: status === 408 || status === 409 || status === 429 || status >= 500,
  });
}
