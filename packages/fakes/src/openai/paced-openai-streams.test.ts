import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { startPacedOpenAIStreams } from "./paced-openai-streams.js";

describe("startPacedOpenAIStreams, read by the openai SDK", () => {
  it("paces every stream from one timer and ends each with a finish chunk, usage and [DONE]", async () => {
    const upstream = await startPacedOpenAIStreams({ tokenIntervalMs: 20, tokens: 3 });
    try {
      const client = new OpenAI({ apiKey: "sk-test", baseURL: `${upstream.url}/v1`, maxRetries: 0 });
      const read = async () => {
        const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }], stream: true });
        const chunks = [];
        for await (const chunk of stream) chunks.push(chunk);
        return chunks;
      };
      const [first, second] = await Promise.all([read(), read()]);
      for (const chunks of [first, second]) {
        expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("token token token ");
        expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
        expect(chunks.at(-1)?.usage).toMatchObject({ completion_tokens: 3, total_tokens: 8 });
      }
      expect(upstream.served).toBe(2);
      expect(upstream.open).toBe(0);
    } finally {
      await upstream.close();
    }
  });

  it("answers anything but a streamed chat completion with OpenAI's 404 error shape", async () => {
    const upstream = await startPacedOpenAIStreams({ tokenIntervalMs: 20, tokens: 1 });
    try {
      const response = await fetch(`${upstream.url}/v1/chat/completions`, { method: "POST", body: "{}" });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    } finally {
      await upstream.close();
    }
  });
});
