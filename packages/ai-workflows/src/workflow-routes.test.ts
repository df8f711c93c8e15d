import SwaggerParser from "@apidevtools/swagger-parser";
import { createRuntime } from "@conduit-ai/runtime";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { generateOpenAPIDocument } from "@conduit-ai/server-core/openapi";
import { createTestApp } from "@conduit-ai/server-core/testing";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  FOCUS_AREAS,
  ISSUE_TYPES,
  LANGUAGES,
  OUTPUT_FORMATS,
  STYLES,
  TEST_FRAMEWORKS,
  TEST_TYPES,
  createAiWorkflowRoutes,
  registerAiWorkflows,
} from "./index.js";

const ENDPOINTS = [
  "analyze-usage",
  "benchmark-performance",
  "optimize-parameters",
  "generate-test-cases",
  "refactor-code",
  "generate-documentation",
  "debug-ai-output",
];

/** docs/spec.md "Analysis and workflow endpoints": the request fields listed without `?`. */
const SPEC_REQUIRED: Record<string, string[]> = {
  "analyze-usage": ["timeframe", "providers", "includeOptimizations"],
  "benchmark-performance": ["iterations", "testPrompts", "includeQualityMetrics"],
  "optimize-parameters": ["prompt", "style", "optimizeFor"],
  "generate-test-cases": ["codeFunction", "testTypes", "framework"],
  "refactor-code": ["sourceCode", "target", "focusAreas"],
  "generate-documentation": ["codeBase", "outputFormat", "includeExamples"],
  "debug-ai-output": ["aiResponse", "expectedFormat", "issueTypes"],
};

const runtime = createRuntime({ env: {} });
// The whole pipeline with the default stack, answered in memory: no port for one route group.
const app = createTestApp({
  runtime,
  defaultMiddleware: true,
  config: { rateLimit: { enabled: false }, enableSwagger: true },
  setup: (server) => {
    registerAllRoutes(server);
    registerAiWorkflows(server, { benchmarkBudgetMs: 2_000 });
  },
});
afterAll(async () => {
  await runtime.close();
});

async function post(path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await app.request({ method: "POST", url: `/api/ai/${path}`, headers: { "content-type": "application/json" }, body });
  return { status: response.status, json: response.json() };
}

const CODE_TOKENS = [
  "function",
  "f",
  "(",
  ")",
  "{",
  "}",
  "if",
  "==",
  "var",
  "x",
  "=",
  "1",
  ";",
  "return",
  "'a'",
  "+",
  "class",
  "export",
  "=>",
  "\n",
  "async",
  "await",
  "[",
  "]",
  "/**",
  "*/",
  "@param",
  "throw",
  "new",
  "Error",
  ":",
  "string",
  "<",
  ">",
  "`",
  "${",
  "\\",
  '"',
  "typeof",
  "null",
  "__proto__",
];
const code = fc.array(fc.constantFrom(...CODE_TOKENS), { maxLength: 120 }).map((tokens) => tokens.join(" "));
const anyValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(fc.oneof(arbitrary, anyValue), { nil: undefined });

const bodies: Record<string, fc.Arbitrary<unknown>> = {
  "analyze-usage": fc.record({
    timeframe: maybe(fc.constantFrom("1h", "24h", "7d", "30d")),
    providers: maybe(fc.array(fc.string(), { maxLength: 4 })),
    includeOptimizations: maybe(fc.boolean()),
    provider: maybe(fc.constantFrom("local", "openai")),
  }),
  "benchmark-performance": fc.record({
    iterations: maybe(fc.integer({ min: -2, max: 60 })),
    testPrompts: maybe(fc.array(fc.string({ maxLength: 60 }), { maxLength: 6 })),
    includeQualityMetrics: maybe(fc.boolean()),
    maxTokens: maybe(fc.integer()),
  }),
  "optimize-parameters": fc.record({
    prompt: maybe(fc.string({ maxLength: 400 })),
    style: maybe(fc.constantFrom(...STYLES)),
    optimizeFor: maybe(fc.constantFrom("speed", "quality", "cost", "tokens")),
    includeAlternatives: maybe(fc.boolean()),
  }),
  "generate-test-cases": fc.record({
    codeFunction: maybe(code),
    testTypes: maybe(fc.subarray([...TEST_TYPES], { minLength: 1 })),
    framework: maybe(fc.constantFrom(...TEST_FRAMEWORKS)),
    language: maybe(fc.constantFrom(...LANGUAGES)),
    modulePath: maybe(fc.string({ maxLength: 20 })),
  }),
  "refactor-code": fc.record({
    sourceCode: maybe(code),
    target: maybe(fc.constantFrom("readability", "performance", "maintainability", "modern-syntax")),
    focusAreas: maybe(fc.subarray([...FOCUS_AREAS], { minLength: 1 })),
  }),
  "generate-documentation": fc.record({
    codeBase: maybe(code),
    outputFormat: maybe(fc.constantFrom(...OUTPUT_FORMATS)),
    includeExamples: maybe(fc.boolean()),
    apiDocumentation: maybe(fc.boolean()),
  }),
  "debug-ai-output": fc.record({
    aiResponse: maybe(
      fc.oneof(
        fc.string({ maxLength: 300 }),
        fc.json(),
        code,
        fc.jsonValue().map((value) => ({ data: value, metadata: {} })),
      ),
    ),
    expectedFormat: maybe(
      fc.oneof(
        fc.constantFrom("auto", "json", "yaml", "markdown", "javascript", "typescript", "text"),
        fc.jsonValue().map((value) => JSON.stringify({ type: "object", properties: { a: value } })),
      ),
    ),
    issueTypes: maybe(fc.subarray([...ISSUE_TYPES], { minLength: 1 })),
    analysisDepth: maybe(fc.constantFrom("quick", "detailed", "comprehensive")),
  }),
};

describe("the /api/ai endpoints under fuzzed input", () => {
  it.each(ENDPOINTS)("%s never answers 5xx, always the JSON envelope", async (endpoint) => {
    const arbitrary = fc.oneof(
      { weight: 4, arbitrary: bodies[endpoint] as fc.Arbitrary<unknown> },
      { weight: 1, arbitrary: fc.jsonValue() },
    );
    await fc.assert(
      fc.asyncProperty(arbitrary, async (body) => {
        const { status, json } = await post(endpoint, JSON.stringify(body ?? null));
        expect(status, JSON.stringify(body).slice(0, 300)).toBeLessThan(500);
        expect(status === 200 ? "data" in json : "error" in json).toBe(true);
      }),
      { numRuns: endpoint === "benchmark-performance" ? 40 : 120 },
    );
  });

  it("survives hostile bodies: prototype keys, deep nesting, huge strings", async () => {
    const issueTypes = [...ISSUE_TYPES];
    const hostile = [
      `{"__proto__": {"polluted": true}, "issueTypes": ${JSON.stringify(issueTypes)}, "aiResponse": "{\\"__proto__\\": {\\"polluted\\": 1}}", "expectedFormat": "{\\"type\\":\\"object\\",\\"properties\\":{\\"__proto__\\":{\\"type\\":\\"string\\"}}}"}`,
      JSON.stringify({ aiResponse: "[".repeat(400_000), expectedFormat: "json", issueTypes }),
      JSON.stringify({ aiResponse: "{".repeat(5_000), expectedFormat: "yaml", issueTypes, analysisDepth: "comprehensive" }),
      JSON.stringify({ codeFunction: "(".repeat(100_000), framework: "vitest", testTypes: ["unit"] }),
      JSON.stringify({
        sourceCode: `${"if (a) {".repeat(2_000)}${"}".repeat(2_000)}`,
        target: "readability",
        focusAreas: ["nested-conditionals"],
      }),
      JSON.stringify({ codeBase: "x".repeat(299_999), outputFormat: "markdown", includeExamples: true }),
    ];
    const paths = [
      "debug-ai-output",
      "debug-ai-output",
      "debug-ai-output",
      "generate-test-cases",
      "refactor-code",
      "generate-documentation",
    ];
    for (const [index, body] of hostile.entries()) {
      const { status } = await post(paths[index] as string, body);
      expect(status, paths[index]).toBe(200);
    }
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  });
});

describe("OpenAPI", () => {
  it("documents every endpoint and the document validates", async () => {
    const document = generateOpenAPIDocument([createAiWorkflowRoutes(runtime)].flatMap((group) => group.routes));
    expect(Object.keys(document.paths ?? {}).sort()).toEqual(ENDPOINTS.map((name) => `/api/ai/${name}`).sort());
    await SwaggerParser.validate(structuredClone(document) as never);
    const served = (await app.request({ url: "/api/docs/openapi.json" })).json<{ paths: Record<string, unknown> }>();
    for (const name of ENDPOINTS) expect(served.paths[`/api/ai/${name}`]).toBeDefined();
    await SwaggerParser.validate(served as never);
    type Operation = { post: { requestBody: { content: Record<string, { schema: { required?: string[] } }> } } };
    // docs/spec.md "Analysis and workflow endpoints": every listed field without `?` is required.
    for (const [name, fields] of Object.entries(SPEC_REQUIRED)) {
      const operation = document.paths?.[`/api/ai/${name}`] as Operation;
      expect(operation.post.requestBody.content["application/json"]?.schema.required, name).toEqual(expect.arrayContaining(fields));
    }
  });
});
