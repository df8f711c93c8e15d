import type { AnswerModel } from "../model-turn.js";
import { startVendorFake, type VendorFake } from "../vendor-fake.js";
import { geminiBody, geminiCall, geminiEmbeddings, geminiError, geminiFrames } from "./gemini-wire.js";

/**
 * The Gemini API on loopback: `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse`, `:embedContent` and `:batchEmbedContents`, the key in
 * `x-goog-api-key` (or `?key=`). Usage reports cached content and thoughts tokens. `baseURL`
 * is what `@ai-sdk/google` takes (`url` + `/v1beta`); `@google/genai` takes `url`.
 *
 * @example
 * const gemini = await startFakeGemini();
 * gemini.keys.add("gemini-key");
 */
export async function startFakeGemini(options: { answer?: AnswerModel } = {}): Promise<VendorFake & { baseURL: string }> {
  const fake = await startVendorFake(
    {
      route: geminiCall,
      credential: (request) =>
        (request.headers["x-goog-api-key"] as string | undefined) ??
        new URL(request.path, "http://fake").searchParams.get("key") ??
        undefined,
      error: geminiError,
      body: geminiBody,
      frames: geminiFrames,
      streamHeaders: { "content-type": "text/event-stream" },
      embeddings: (_call, request) => geminiEmbeddings(request),
    },
    "Gemini",
    options.answer,
  );
  return Object.assign(fake, { baseURL: `${fake.url}/v1beta` });
}
