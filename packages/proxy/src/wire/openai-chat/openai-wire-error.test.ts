import { OpenAIError as SdkOpenAIError } from "openai";
import { describe, expect, it } from "vitest";
import * as proxy from "../../index.js";
import { OpenAIWireError, invalidRequest } from "./openai-wire-error.js";

describe("OpenAIWireError", () => {
  it("is named apart from the openai SDK's OpenAIError, so both can be imported side by side", () => {
    const error = invalidRequest("messages must not be empty", "messages");
    expect(error).toBeInstanceOf(OpenAIWireError);
    expect(error).not.toBeInstanceOf(SdkOpenAIError);
    expect(error.name).toBe("OpenAIWireError");
    expect(error.toBody()).toEqual({
      error: { message: "messages must not be empty", type: "invalid_request_error", param: "messages", code: null },
    });
  });

  it("keeps the old export as a deprecated alias of the same class", () => {
    expect(proxy.OpenAIWireError).toBe(OpenAIWireError);
    expect(proxy.OpenAIError).toBe(OpenAIWireError);
    const error: proxy.OpenAIError = new proxy.OpenAIError(404, "gone");
    expect(error).toBeInstanceOf(OpenAIWireError);
  });
});
