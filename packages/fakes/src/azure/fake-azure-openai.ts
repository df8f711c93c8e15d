import type { AnswerModel } from "../model-turn.js";
import { completionBody, embeddingsBody, streamFrames } from "../openai/openai-wire.js";
import { VENDOR_FAILURE_STATUS, startVendorFake, type VendorFake } from "../vendor-fake.js";

export interface FakeAzureOpenAI extends VendorFake {
  /** `url` + `/openai`: the `baseURL` of `@ai-sdk/azure`; the `endpoint` of `openai`'s `AzureOpenAI` is `url`. */
  baseURL: string;
}

/**
 * Azure OpenAI on loopback, on its deployment paths:
 * `POST /openai/deployments/{deployment}/chat/completions?api-version=…` (JSON or SSE, OpenAI's
 * chunks) and `…/embeddings`, the key in `api-key`. A missing `api-version` is a 404, as Azure
 * answers it. The model of a call is the deployment's name.
 *
 * @example
 * const azure = await startFakeAzureOpenAI();
 * new AzureOpenAI({ endpoint: azure.url, apiKey: "k", apiVersion: "2024-10-21", deployment: "gpt-4o-prod" });
 */
export async function startFakeAzureOpenAI(options: { answer?: AnswerModel } = {}): Promise<FakeAzureOpenAI> {
  const fake = await startVendorFake(
    {
      route: (request) => {
        const url = new URL(request.path, "http://fake");
        const match = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(url.pathname);
        if (request.method !== "POST" || !match) return { failure: "not-found", message: "Resource not found" };
        if (!url.searchParams.get("api-version")) return { failure: "not-found", message: "Resource not found (no api-version)" };
        const model = decodeURIComponent(match[1] ?? "");
        if (match[2] === "embeddings") return { operation: "embed", model, conversation: {} };
        return { operation: request.body.stream === true ? "stream" : "generate", model, conversation: request.body };
      },
      credential: (request) => request.headers["api-key"] as string | undefined,
      error: (failure, message) => ({
        status: VENDOR_FAILURE_STATUS[failure],
        body: { error: { code: String(VENDOR_FAILURE_STATUS[failure]), message } },
      }),
      body: (turn, call) => completionBody(turn, call.model),
      frames: (turn, call) => streamFrames(turn, call.model),
      streamHeaders: { "content-type": "text/event-stream" },
      embeddings: (_call, request) => embeddingsBody(request.body),
    },
    "Azure",
    options.answer,
  );
  return Object.assign(fake, { baseURL: `${fake.url}/openai` });
}
