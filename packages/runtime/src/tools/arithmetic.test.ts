import { describe, expect, it } from "vitest";
import { evaluateArithmetic } from "./arithmetic.js";

describe("evaluateArithmetic", () => {
  it.each([
    ["2+3", 5],
    ["2 + 3 * 4", 14],
    ["(2 + 3) * 4", 20],
    ["2 ^ 3 ^ 2", 512],
    ["-4 + 10 / 4", -1.5],
    ["10 % 4", 2],
    ["1.5e2 - .5", 149.5],
  ])("%s = %d", (expression, expected) => {
    expect(evaluateArithmetic(expression)).toBe(expected);
  });

  it.each(["", "2 +", "(1 + 2", "1 / 0", "process.exit()", "2 3"])("rejects %j", (expression) => {
    expect(() => evaluateArithmetic(expression)).toThrow(Error);
  });
});
