import type { AnswerModel } from "../model-turn.js";
import { VENDOR_FAILURE_STATUS, bearerCredential, startVendorFake, type VendorFake } from "../vendor-fake.js";
import { cohereBody, cohereEmbeddings, cohereFrames } from "./cohere-wire.js";

/**
 * Cohere's v2 API on loopback: `POST /v2/chat` (JSON, or SSE events `message-start` …
 * `message-end` with `stream: true`, tool calls with a tool plan) and `POST /v2/embed`, the key
 * as `Authorization: Bearer`. Errors are Cohere's (`{ message }`).
 *
 * @example
 * const cohere = await startFakeCohere();
 * new CohereClientV2({ token: "k", environment: cohere.url });
 */
export async function startFakeCohere(options: { answer?: AnswerModel } = {}): Promise<VendorFake & { baseURL: string }> {
  const fake = await startVendorFake(
    {
      route: (request) => {
        const path = request.path.split("?")[0];
        const model = String(request.body.model ?? "");
        if (request.method === "POST" && path === "/v2/embed") return { operation: "embed", model, conversation: {} };
        if (request.method !== "POST" || path !== "/v2/chat") return { failure: "not-found", message: `no route ${request.path}` };
        return { operation: request.body.stream === true ? "stream" : "generate", model, conversation: request.body };
      },
      credential: bearerCredential,
      error: (failure, message) => ({ status: VENDOR_FAILURE_STATUS[failure], body: { id: "fake-error", message } }),
      body: (turn) => cohereBody(turn),
      frames: cohereFrames,
      streamHeaders: { "content-type": "text/event-stream" },
      embeddings: (_call, request) => cohereEmbeddings(request.body),
    },
    "Cohere",
    options.answer,
  );
  return Object.assign(fake, { baseURL: `${fake.url}/v2` });
}
