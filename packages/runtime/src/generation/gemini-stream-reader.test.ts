import type { ServerResponse } from "node:http";
import type { KeyOutcome, KeySource } from "@conduit-ai/server-core";
import { type FakeServer, type RecordedRequest, sendJson, startEventStream, startFakeServer } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it } from "vitest";
import { bothPaths, googleProvider, partsOf, planOf } from "../testing/gemini-parity.fixture.js";
import { streamWithModel } from "./ai-sdk-model-stream.js";
import { streamGemini } from "./gemini-stream-engine.js";
import type { GenerationPart } from "./generation-part.js";

// The chunks the Gemini fake does not send (thoughts, signatures, inline data, continued answers,
// blocked prompts, errors mid-stream), a key pool and a cancel: read by Conduit's own client
// exactly as through the AI SDK's path.
/** A Gemini server answering each streamed call with `frames` (or as `answer` says). */
async function gemini(answer: (request: RecordedRequest, response: ServerResponse) => void): Promise<FakeServer> {
  return startFakeServer(answer);
}
const frame = (body: unknown) => `data: ${JSON.stringify(body)}\r\n\r\n`;
const candidate = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: "model", parts }, ...extra }],
});

describe("the Gemini stream engine on the chunks the fake does not send", () => {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function serve(answer: (request: RecordedRequest, response: ServerResponse) => void) {
    const server = await gemini(answer);
    servers.push(server);
    return `${server.url}/v1beta`;
  }

  it("numbers text blocks after thoughts, passes signature-only deltas, and sums a continued answer's usage", async () => {
    const baseURL = await serve((request, response) => {
      startEventStream(response);
      const continued = request.body.continuationToken === "next";
      if (!continued) {
        response.end(
          frame(candidate([{ text: "thinking", thought: true }])) +
            frame(candidate([{ text: "Hel" }, { text: "", thoughtSignature: "sig" }])) +
            frame(candidate([{ inlineData: { mimeType: "image/png", data: "AA==" } }, { text: "lo" }])) +
            frame({
              ...candidate([], { finishReason: "CONTINUATION", continuationToken: "next" }),
              usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 2, cachedContentTokenCount: 6 },
            }),
        );
        return;
      }
      response.end(
        frame({
          ...candidate([{ text: " world" }], { finishReason: "MAX_TOKENS" }),
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3 },
        }),
      );
    });
    const { sdk, lean } = await bothPaths(baseURL);
    expect(lean).toEqual(sdk);
    expect(lean.map((part) => (part as GenerationPart).type)).toEqual([
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(lean.at(-1)).toEqual({
      type: "finish",
      reason: "length",
      usage: { inputTokens: 20, outputTokens: 9, totalTokens: 29, cacheReadTokens: 6, reasoningTokens: 2 },
    });
  });

  it("reports a blocked prompt as content-filter and an error sent mid-stream as the vendor's error", async () => {
    const blocked = await serve((_request, response) => {
      startEventStream(response);
      response.end(frame({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 3 } }));
    });
    const first = await bothPaths(blocked);
    expect(first.lean).toEqual(first.sdk);
    expect(first.lean).toEqual([{ type: "finish", reason: "content-filter", usage: { inputTokens: 3, outputTokens: 0, totalTokens: 3 } }]);
    const failing = await serve((_request, response) => {
      startEventStream(response);
      response.end(
        frame(candidate([{ text: "par" }])) + frame({ error: { code: 503, message: "model overloaded", status: "UNAVAILABLE" } }),
      );
    });
    const second = await bothPaths(failing);
    expect(second.lean).toEqual(second.sdk);
    expect(second.lean.at(-1)).toMatchObject({ type: "error", statusCode: 502, message: expect.stringContaining("503: model overloaded") });
  });

  it("moves to the pool's other key when one answers 429, in the same call, reporting both answers", async () => {
    const baseURL = await serve((request, response) => {
      if (request.headers["x-goog-api-key"] === "cold")
        return sendJson(response, 429, { error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } }, { "retry-after": "7" });
      startEventStream(response);
      response.end(
        frame({
          ...candidate([{ text: "ok" }], { finishReason: "STOP" }),
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
        }),
      );
    });
    const outcomes: Array<number | undefined> = [];
    const pool = (): KeySource => {
      let next = 0;
      return {
        keys: 2,
        pick: () => {
          const key = next++ % 2 === 0 ? "cold" : "warm";
          return { key, report: (outcome: KeyOutcome) => outcomes.push(outcome.status) };
        },
      };
    };
    const { sdk, lean } = await bothPaths(baseURL, {}, pool);
    expect(lean).toEqual(sdk);
    expect(lean.at(-1)).toMatchObject({ type: "finish", reason: "stop" });
    expect(outcomes).toEqual([429, 200, 429, 200]);
  });

  it("ends the upstream request and yields the abort when the caller cancels mid-stream", async () => {
    const server = await gemini((_request, response) => {
      startEventStream(response);
      response.write(frame(candidate([{ text: "partial" }])));
    });
    servers.push(server);
    const baseURL = `${server.url}/v1beta`;
    const run = async (lean: boolean) => {
      const provider = googleProvider(baseURL);
      const controller = new AbortController();
      const plan = planOf(provider, { context: { signal: controller.signal } });
      const parts = lean && provider.gemini ? streamGemini(plan, provider.gemini) : streamWithModel(plan);
      try {
        return await partsOf(parts, (part) => part.type === "text-delta" && controller.abort());
      } finally {
        provider.gemini?.close();
      }
    };
    const sdk = await run(false);
    const lean = await run(true);
    expect(lean).toEqual(sdk);
    expect(lean.at(-1)).toMatchObject({ type: "error", statusCode: 499 });
    await Promise.all(server.requests.map((request) => request.closed));
    expect(server.cancelled).toBe(2);
  });
});
