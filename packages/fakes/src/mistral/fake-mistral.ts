import type { AnswerModel } from "../model-turn.js";
import { completionBody, embeddingsBody, streamFrames } from "../openai/openai-wire.js";
import { VENDOR_FAILURE_STATUS, bearerCredential, startVendorFake, type VendorFake } from "../vendor-fake.js";

/**
 * Mistral's La Plateforme on loopback: `POST /v1/chat/completions` (JSON, or SSE whose finish
 * chunk carries the usage) and `/v1/embeddings`, the key as `Authorization: Bearer`. Errors are
 * Mistral's (`{ object: "error", message, type, code }`).
 *
 * @example
 * const mistral = await startFakeMistral();
 * new Mistral({ apiKey: "k", serverURL: mistral.url });
 */
export async function startFakeMistral(options: { answer?: AnswerModel } = {}): Promise<VendorFake & { baseURL: string }> {
  const fake = await startVendorFake(
    {
      route: (request) => {
        const path = request.path.split("?")[0];
        const model = String(request.body.model ?? "");
        if (request.method === "POST" && path === "/v1/embeddings") return { operation: "embed", model, conversation: {} };
        if (request.method !== "POST" || path !== "/v1/chat/completions")
          return { failure: "not-found", message: `no route ${request.path}` };
        return { operation: request.body.stream === true ? "stream" : "generate", model, conversation: request.body };
      },
      credential: bearerCredential,
      error: (failure, message) => ({
        status: VENDOR_FAILURE_STATUS[failure],
        body: { object: "error", message, type: failure.replace("-", "_"), param: null, code: String(VENDOR_FAILURE_STATUS[failure]) },
      }),
      body: (turn, call) => completionBody(turn, call.model, "mistral"),
      frames: (turn, call) => streamFrames(turn, call.model, "mistral"),
      streamHeaders: { "content-type": "text/event-stream" },
      embeddings: (_call, request) => ({ id: "embd-fake", ...embeddingsBody(request.body) }),
    },
    "Mistral",
    options.answer,
  );
  return Object.assign(fake, { baseURL: `${fake.url}/v1` });
}
