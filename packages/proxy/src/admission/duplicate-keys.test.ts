import { describe, expect, it } from "vitest";
import { duplicateTopLevelKey } from "./duplicate-keys.js";
import { gatedBodyProblem } from "./request-estimate.js";

describe("duplicateTopLevelKey", () => {
  it("finds a top-level name given twice, however it is spelled", () => {
    expect(duplicateTopLevelKey('{"model":"a","max_tokens":1,"model":"b"}')).toBe("model");
    expect(duplicateTopLevelKey(' { "mod\\u0065l" : "a" , "model" : "b" } ')).toBe("model");
    expect(duplicateTopLevelKey('{"a":1,"b":[1,{"a":2}],"c":{"a":{"a":3}},"a":4}')).toBe("a");
  });

  it("ignores nested names, names inside strings, escaped quotes and text that is not an object", () => {
    expect(duplicateTopLevelKey('{"model":"a","metadata":{"model":"b"},"messages":[{"model":"c"}]}')).toBeUndefined();
    expect(duplicateTopLevelKey('{"text":"\\"model\\":\\"x\\", {}[]","model":"a","tail":"\\\\"}')).toBeUndefined();
    expect(duplicateTopLevelKey('{"a":"\\\\","a":1}')).toBe("a");
    expect(duplicateTopLevelKey("{}")).toBeUndefined();
    expect(duplicateTopLevelKey('["model","model"]')).toBeUndefined();
    expect(duplicateTopLevelKey('{"model":"a",')).toBeUndefined();
    expect(duplicateTopLevelKey("")).toBeUndefined();
  });
});

describe("gatedBodyProblem", () => {
  it("names a repeated key, or an output cap above 10^7", () => {
    expect(gatedBodyProblem('{"model":"a","model":"b"}', { model: "b" })).toMatchObject({ field: "model" });
    expect(gatedBodyProblem('{"max_output_tokens":1e12}', { max_output_tokens: 1e12 })).toMatchObject({ field: "max_output_tokens" });
    expect(gatedBodyProblem('{"max_tokens":10000000}', { max_tokens: 10_000_000 })).toBeUndefined();
  });
});
