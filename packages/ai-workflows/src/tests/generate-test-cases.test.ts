import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsesCleanly } from "../code/parse-code.js";
import { generateTestCasesRequestSchema, TEST_FRAMEWORKS, TEST_TYPES } from "../schemas/generate-test-cases-schema.js";
import { generateTestCases } from "./generate-test-cases.js";

const MODULE = `/**
 * Clamps a value.
 * @example
 * clamp(5, 0, 3); // => 3
 */
export function clamp(value, min, max) {
  if (typeof value !== "number") throw new TypeError("value must be a number");
  if (min > max) throw new RangeError("min > max");
  return Math.min(Math.max(value, min), max);
}

export const slugify = (text) => text.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-");

export async function fetchCount(limit = 10) {
  if (limit < 1) throw new Error("limit must be positive");
  return limit * 2;
}

export function mergeOptions(options) {
  return { ...{ retries: 3 }, ...options };
}

export class Stack {
  constructor() { this.items = []; }
  push(item) { this.items.push(item); return this.items.length; }
  pop() { return this.items.pop(); }
  static of(items) { const stack = new Stack(); for (const item of items) stack.push(item); return stack; }
}

export function summary(items) {
  return slugify(String(items.length));
}
`;

const request = (overrides: Record<string, unknown>) =>
  generateTestCasesRequestSchema.parse({ codeFunction: MODULE, testTypes: [...TEST_TYPES], ...overrides });

describe("generate-test-cases (JavaScript/TypeScript)", () => {
  it("finds the real functions, parameters, branches, exports and JSDoc", () => {
    const result = generateTestCases(request({ framework: "vitest" }));
    expect(result.functions.map((fact) => (fact.className ? `${fact.className}.${fact.name}` : fact.name))).toEqual([
      "clamp",
      "slugify",
      "fetchCount",
      "mergeOptions",
      "Stack",
      "Stack.push",
      "Stack.pop",
      "Stack.of",
      "summary",
    ]);
    const clamp = result.functions[0];
    expect(clamp).toMatchObject({
      exported: true,
      throws: true,
      async: false,
      line: 6,
      documentation: expect.stringContaining("Clamps a value"),
    });
    expect(clamp?.params.map((param) => param.name)).toEqual(["value", "min", "max"]);
    expect(result.functions[2]).toMatchObject({
      name: "fetchCount",
      async: true,
      params: [{ name: "limit", defaultValue: "10", optional: true, type: "number" }],
    });
    expect(result.language).toBe("javascript");
  });

  it.each(TEST_FRAMEWORKS.filter((framework) => ["jest", "mocha", "vitest", "node-test"].includes(framework)))(
    "emits %s tests that parse, test by test and as a file",
    (framework) => {
      const result = generateTestCases(request({ framework }));
      const cases = [
        ...result.unitTests,
        ...result.edgeCases,
        ...result.integrationTests,
        ...result.performanceTests,
        ...result.securityTests,
      ];
      expect(cases.length).toBeGreaterThan(15);
      for (const test of cases) expect(parsesCleanly(test.code), test.code).toBe(true);
      expect(parsesCleanly(result.testFile)).toBe(true);
      expect(result.integrationTests.map((test) => test.name)).toEqual([
        "Stack methods work together on one instance",
        "summary works with slugify",
      ]);
    },
  );

  it("derives the edge cases from the branch conditions and the JSDoc example", () => {
    const result = generateTestCases(request({ framework: "vitest" }));
    const codes = result.edgeCases.map((test) => test.code).join("\n");
    expect(codes).toContain('expect(() => clamp("42", 3, 4)).toThrow();');
    expect(codes).toContain("await expect(fetchCount(0)).rejects.toThrow();");
    expect(result.unitTests[0]?.code).toContain("expect(clamp(5, 0, 3)).toEqual(3);");
  });

  it("emits node:test tests that run and pass against the real module", () => {
    const directory = mkdtempSync(join(tmpdir(), "conduit-generated-"));
    writeFileSync(join(directory, "module.mjs"), MODULE);
    const result = generateTestCases(
      request({ framework: "node-test", modulePath: "./module.mjs", testTypes: ["unit", "edge-cases", "integration", "security"] }),
    );
    writeFileSync(join(directory, "generated.test.mjs"), result.testFile);
    const run = spawnSync(process.execPath, ["--test", "generated.test.mjs"], { cwd: directory, encoding: "utf8", timeout: 60_000 });
    const summary = `${run.stdout}\n${run.stderr}`;
    expect(summary, summary).toMatch(/# pass \d+/);
    expect(Number(/# pass (\d+)/.exec(summary)?.[1])).toBeGreaterThan(15);
    expect(summary, summary).toMatch(/# fail 0/);
  });

  it("treats a snippet without exports as its top-level functions, and says so", () => {
    const result = generateTestCases(
      request({ codeFunction: "function double(n) { return n * 2; }", framework: "jest", testTypes: ["unit"] }),
    );
    expect(result.testFile).toContain('import { double } from "./module";');
    expect(result.warnings[0]).toMatch(/exports nothing/);
  });

  it("still finds the functions of code cut off mid-way", () => {
    const result = generateTestCases(
      request({ codeFunction: `${MODULE}\nexport function unfinished(a) {\n  if (a`, framework: "vitest", testTypes: ["unit"] }),
    );
    expect(result.parseErrors.length).toBeGreaterThan(0);
    expect(result.functions.map((fact) => fact.name)).toContain("summary");
    expect(parsesCleanly(result.testFile)).toBe(true);
  });

  it("reports syntax errors instead of failing, and TypeScript casts type-violating values", () => {
    const broken = generateTestCases(request({ codeFunction: "export function (", framework: "vitest" }));
    expect(broken.parseErrors.length).toBeGreaterThan(0);
    const typed = generateTestCases(
      request({
        codeFunction:
          "export function len(text: string): number { if (typeof text !== 'string') throw new TypeError('x'); return text.length; }",
        framework: "vitest",
        testTypes: ["edge-cases"],
      }),
    );
    expect(typed.language).toBe("typescript");
    expect(typed.edgeCases[0]?.code).toContain("len((42 as never))");
    expect(parsesCleanly(typed.testFile, "typescript")).toBe(true);
  });
});

describe("generate-test-cases (Python, Ruby, Go)", () => {
  const python = `class Account:
    def deposit(self, amount: int) -> int:
        """Adds money."""
        if amount <= 0:
            raise ValueError("amount must be positive")
        return amount

def greet(name: str, excited: bool = False) -> str:
    return "Hello " + name
`;
  const hasPython = spawnSync("python3", ["--version"]).status === 0;

  it.each(["pytest", "unittest"])("emits %s tests that compile", (framework) => {
    const result = generateTestCases(
      request({ codeFunction: python, framework, testTypes: ["unit", "edge-cases", "performance", "security"] }),
    );
    expect(result.language).toBe("python");
    expect(result.functions.map((fact) => fact.name)).toEqual(["Account", "deposit", "greet"]);
    expect(result.edgeCases[0]?.code).toMatch(/raises\(Exception\)|assertRaises\(Exception\)/);
    expect(result.testFile).toContain("from module import Account, greet");
    if (!hasPython) return;
    const directory = mkdtempSync(join(tmpdir(), "conduit-py-"));
    writeFileSync(join(directory, "test_generated.py"), result.testFile);
    execFileSync("python3", ["-m", "py_compile", join(directory, "test_generated.py")]);
  });

  it("emits rspec and go test files naming the real functions", () => {
    const ruby = generateTestCases(
      request({
        codeFunction:
          "class Cart\n  def add(price, quantity = 1)\n    raise ArgumentError if price < 0\n    price * quantity\n  end\nend\n",
        framework: "rspec",
        testTypes: ["unit", "edge-cases"],
      }),
    );
    expect(ruby.testFile).toContain("expect { Cart.new.add(2) }.not_to raise_error");
    expect(ruby.testFile).toContain("expect { Cart.new.add(-1) }.to raise_error(StandardError)");
    const go = generateTestCases(
      request({
        codeFunction:
          'package shop\n\nfunc Total(price int, quantity int) (int, error) {\n\tif price < 0 {\n\t\treturn 0, errors.New("negative")\n\t}\n\treturn price * quantity, nil\n}\n',
        framework: "go-test",
        testTypes: ["unit", "edge-cases"],
      }),
    );
    expect(go.testFile).toMatch(/^package shop\n/);
    expect(go.testFile).toContain("func TestTotalHandlesTypicalInput(t *testing.T) {\n\t_, err := Total(2, 3)");
    expect(go.testFile).toContain("_, err := Total(-1, 3)\n\tif err == nil {");
  });
});
