import { describe, expect, it } from "vitest";
import {
  anthropicUsageOf,
  openAIChatUsageOf,
  openAIResponsesUsageOf,
  tokenUsageOf,
  usageFromAnthropic,
  usageFromBedrock,
  usageFromGemini,
  usageFromOpenAIChat,
  usageFromOpenAIResponses,
  usageFromTokenUsage,
} from "./metered-usage.js";

describe("one usage shape from every vendor's own fields", () => {
  it("reads Anthropic's cache writes by TTL, an older answer's writes as 5-minute, and server tool uses", () => {
    expect(
      usageFromAnthropic({
        input_tokens: 5,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 30,
        cache_creation: { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 },
        server_tool_use: { web_search_requests: 2 },
      }),
    ).toEqual({ input: 5, output: 7, cacheRead: 100, cacheWrite5m: 10, cacheWrite1h: 20, reasoning: 0, serverTools: { webSearch: 2 } });
    expect(usageFromAnthropic({ input_tokens: 5, output_tokens: 7, cache_creation_input_tokens: 30 })).toMatchObject({
      cacheWrite5m: 30,
      cacheWrite1h: 0,
    });
  });

  it("takes OpenAI's cached tokens out of the input and keeps reasoning inside the output", () => {
    const chat = {
      prompt_tokens: 100,
      completion_tokens: 40,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 30 },
    };
    expect(usageFromOpenAIChat(chat)).toMatchObject({ input: 40, cacheRead: 60, output: 40, reasoning: 30 });
    expect(
      usageFromOpenAIResponses({
        input_tokens: 100,
        output_tokens: 40,
        input_tokens_details: { cached_tokens: 60 },
        output_tokens_details: { reasoning_tokens: 30 },
      }),
    ).toEqual(usageFromOpenAIChat(chat));
  });

  it("reads Gemini's cached content and thoughts, and Bedrock's cache reads and writes", () => {
    expect(
      usageFromGemini({ promptTokenCount: 100, candidatesTokenCount: 10, cachedContentTokenCount: 70, thoughtsTokenCount: 25 }),
    ).toMatchObject({
      input: 30,
      cacheRead: 70,
      output: 35,
      reasoning: 25,
    });
    expect(usageFromBedrock({ inputTokens: 3, outputTokens: 4, cacheReadInputTokens: 50, cacheWriteInputTokens: 9 })).toMatchObject({
      input: 3,
      cacheRead: 50,
      cacheWrite5m: 9,
    });
  });

  it("writes the same figures back in each caller's shape: cached tokens both ways, real reasoning", () => {
    const usage = usageFromAnthropic({ input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 30 });
    expect(openAIChatUsageOf(usage)).toEqual({
      prompt_tokens: 135,
      completion_tokens: 7,
      total_tokens: 142,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    const openai = usageFromOpenAIResponses(openAIResponsesUsageOf({ ...usage, reasoning: 3 }));
    expect(openai).toMatchObject({ cacheRead: 100, reasoning: 3, output: 7 });
    expect(usageFromAnthropic(anthropicUsageOf(usage))).toEqual(usage);
    expect(usageFromTokenUsage(tokenUsageOf(usage))).toMatchObject({ input: 5, cacheRead: 100, cacheWrite5m: 30 });
  });

  it("counts nothing it cannot read (absent, negative, not a number)", () => {
    expect(usageFromAnthropic({ input_tokens: -3, output_tokens: Number.NaN })).toMatchObject({ input: 0, output: 0 });
    expect(usageFromOpenAIChat(undefined)).toMatchObject({ input: 0, output: 0 });
  });
});
