import { generateTestCasesRequestSchema } from "./src/schemas/generate-test-cases-schema.js";
import { generateTestCases } from "./src/tests/generate-test-cases.js";
const parts: string[] = [];
for (let index = 0; parts.length < 2000; index++) parts.push("/**", ` * Computes value ${index}.`, " * @param amount - How much", " * @param label - What to call it", " * @example", ` * compute${index}(2, "x"); // => 4`, " */", `export function compute${index}(amount: number, label: string, options: { strict?: boolean } = {}): number {`, `  if (amount < 0) throw new RangeError("amount must not be negative");`, `  if (typeof label !== "string") throw new TypeError("label");`, `  if (options.strict && label.length === 0) return 0;`, "  let total = 0;", "  for (let step = 0; step < amount; step++) total += step % 2 === 0 ? 2 : 1;", `  return label === "double" ? total * 2 : total;`, "}", "");
const code = parts.slice(0, 2000).join("\n");
const body = { codeFunction: code, testTypes: ["unit", "edge-cases", "integration", "performance", "security"], framework: "vitest" };
for (let round = 0; round < 40; round++) generateTestCases(generateTestCasesRequestSchema.parse(body));
