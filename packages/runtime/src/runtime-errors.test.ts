import { describe, expect, it } from "vitest";
import { RuntimeErrorCode } from "./index.js";

describe("RuntimeErrorCode", () => {
  it("exports docs/spec.md's codes of the runtime features outside the server layer (video, presentation)", () => {
    expect(RuntimeErrorCode).toMatchObject({
      VIDEO_POLL_TIMEOUT: "VIDEO_POLL_TIMEOUT",
      VIDEO_INVALID_INPUT: "VIDEO_INVALID_INPUT",
      PPT_PLANNING_FAILED: "PPT_PLANNING_FAILED",
      PPT_INVALID_AI_RESPONSE: "PPT_INVALID_AI_RESPONSE",
      PPT_FILE_WRITE_FAILED: "PPT_FILE_WRITE_FAILED",
    });
    // Every value is its own name, so a client can match `error.code` against the keys.
    for (const [name, value] of Object.entries(RuntimeErrorCode)) expect(value).toBe(name);
  });
});
