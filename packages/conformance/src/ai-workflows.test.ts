import { type AiWorkflowOptions, FOCUS_AREAS, registerAiWorkflows } from "@conduit-ai/ai-workflows";
import { createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, type Runtime, registerAllRoutes } from "@conduit-ai/server-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "@conduit-ai/fakes";
import { playScenario, type StructuredScenario, structuredAnswers } from "./fixtures/structured-answers.js";
import { forEachAdapter, type RunningServer } from "./harness.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies of seven shapes, read field by field
type Json = Record<string, any>;
const CODE = `/**
 * Adds two numbers.
 * @example
 * add(2, 3); // => 5
 */
export function add(a: number, b: number): number {
  if (a < 0) throw new RangeError("a must not be negative");
  return a + b;
}
export const greet = (name) => "Hello, " + name + "!";
var unused = 1;
`;

/** One valid request per endpoint. */
const REQUESTS: Record<string, Json> = {
  "analyze-usage": { timeframe: "1h", providers: [], includeOptimizations: true },
  "benchmark-performance": { iterations: 2, testPrompts: ["List 3 colors", "Answer in one word: sky color?"], includeQualityMetrics: true },
  "optimize-parameters": { prompt: "write some stuff about dogs", style: "precise", optimizeFor: "cost", includeAlternatives: true },
  "generate-test-cases": { codeFunction: CODE, testTypes: ["unit", "edge-cases", "security"], framework: "vitest" },
  "refactor-code": { sourceCode: CODE, target: "modern-syntax", focusAreas: [...FOCUS_AREAS] },
  "generate-documentation": { codeBase: CODE, outputFormat: "markdown", includeExamples: true },
  "debug-ai-output": {
    aiResponse: '{"name": "x", "age": "42",}',
    expectedFormat: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"] },
    issueTypes: ["format", "type-mismatch", "completeness"],
  },
};
const AI_PATH = Object.keys(REQUESTS).filter((name) => name !== "benchmark-performance");

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ answer: structuredAnswers("valid") });
});
afterAll(() => fake.close());

async function post(server: RunningServer, path: string, body: unknown): Promise<{ status: number; json: Json }> {
  const response = await fetch(server.url(path), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

function withWorkflows(runtime: Runtime, options: AiWorkflowOptions = {}) {
  return {
    runtime,
    config: { rateLimit: { enabled: false }, enableSwagger: true },
    setup: (adapter: BaseServerAdapter<unknown>) => {
      registerAllRoutes(adapter);
      registerAiWorkflows(adapter, options);
    },
  };
}

const remoteRuntime = () =>
  createRuntime({ env: {}, openai: { baseURL: fake.baseURL, apiKey: "test-key", models: ["gpt-4o-mini"] }, maxRetries: 0 });

forEachAdapter("ai workflows", ({ start }) => {
  it("answers every endpoint with the simulated result, derived from the input, in the success envelope", async () => {
    const runtime = createRuntime({ env: {} });
    const server = await start(withWorkflows(runtime));
    for (const text of ["first call", "second call"])
      expect((await post(server, "/api/agent/execute", { input: { text } })).status).toBe(200);
    const results: Record<string, Json> = {};
    for (const [name, body] of Object.entries(REQUESTS)) {
      const { status, json } = await post(server, `/api/ai/${name}`, body);
      expect(status, name).toBe(200);
      expect(json.metadata.requestId, name).toMatch(/^req-/);
      expect(json.data, name).toMatchObject({ simulated: true, provider: null, model: null });
      expect(json.data.fallbackReason, name).toBeUndefined();
      results[name] = json.data;
    }
    expect(results["analyze-usage"]!.tokenUsage.total.calls).toBe(2);
    expect(results["analyze-usage"]!.tokenUsage.byProvider[0].provider).toBe("local");
    expect(results["benchmark-performance"]!.latencyResults).toEqual([
      expect.objectContaining({ provider: "local", model: "echo", runs: 4, failures: 0 }),
    ]);
    expect(results["benchmark-performance"]!.latencyResults[0].latencyMs.p99).toBeGreaterThanOrEqual(
      results["benchmark-performance"]!.latencyResults[0].latencyMs.p50,
    );
    expect(results["optimize-parameters"]!.promptAnalysis.findings.map((finding: Json) => finding.rule)).toContain("missing-output-format");
    expect(results["optimize-parameters"]!.alternatives).toHaveLength(3);
    expect(results["generate-test-cases"]!.unitTests.map((test: Json) => test.functionName)).toEqual(
      expect.arrayContaining(["add", "greet"]),
    );
    expect(
      results["generate-test-cases"]!.edgeCases.some((test: Json) => test.code.includes("add(-1, 3)") && test.code.includes("toThrow()")),
    ).toBe(true);
    expect(results["generate-test-cases"]!.testFile).toContain('import { add, greet } from "./module";');
    expect(results["refactor-code"]!.optimizedCode).toContain("const unused = 1;");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the expected code contains a template literal
    expect(results["refactor-code"]!.optimizedCode).toContain("`Hello, ${name}!`");
    expect(results["generate-documentation"]!.apiReference.map((entry: Json) => entry.name)).toEqual(["add", "greet"]);
    expect(results["generate-documentation"]!.document).toContain("add(a: number, b: number): number");
    const debug = results["debug-ai-output"]!;
    expect(debug.analysis.issuesFound).toBe(debug.issues.length);
    expect(debug.issues).toEqual([
      expect.objectContaining({ type: "format", severity: "high", line: 1, column: 27 }),
      expect.objectContaining({ type: "type-mismatch", path: "age" }),
    ]);
    expect(JSON.parse(debug.correctedOutput)).toEqual({ name: "x", age: 42 });
  });

  it("refuses bad input with 400 VALIDATION_ERROR naming each field", async () => {
    const server = await start(withWorkflows(createRuntime({ env: {} })));
    const cases: Array<[string, Json, string[]]> = [
      ["analyze-usage", { timeframe: "2h", providers: [], includeOptimizations: "yes" }, ["body.includeOptimizations", "body.timeframe"]],
      [
        "benchmark-performance",
        { iterations: 10, testPrompts: ["a", "b", "c", "d", "e", "f"], includeQualityMetrics: true },
        ["body.iterations"],
      ],
      ["benchmark-performance", { iterations: 0, testPrompts: [], includeQualityMetrics: false }, ["body.iterations", "body.testPrompts"]],
      ["optimize-parameters", { prompt: "", style: "weird", optimizeFor: "vibes" }, ["body.optimizeFor", "body.prompt", "body.style"]],
      [
        "generate-test-cases",
        { codeFunction: 1, framework: "junit", testTypes: ["unit", "unit"] },
        ["body.codeFunction", "body.framework", "body.testTypes"],
      ],
      [
        "generate-test-cases",
        { codeFunction: "def f(x):\n  return x", framework: "pytest", testTypes: ["unit"], language: "typescript" },
        ["body.framework"],
      ],
      [
        "refactor-code",
        { sourceCode: "x".repeat(300_001), target: "readability", focusAreas: ["nope"] },
        ["body.focusAreas.0", "body.sourceCode"],
      ],
      ["generate-documentation", { codeBase: "", outputFormat: "pdf", includeExamples: true }, ["body.codeBase", "body.outputFormat"]],
      ["debug-ai-output", { expectedFormat: "auto", issueTypes: ["style"] }, ["body.aiResponse", "body.issueTypes.0"]],
      ["debug-ai-output", { aiResponse: "x", expectedFormat: "csv", issueTypes: ["format"] }, ["body.expectedFormat"]],
      ["debug-ai-output", { aiResponse: "x", expectedFormat: { type: "banana" }, issueTypes: ["format"] }, ["body.expectedFormat"]],
      ["optimize-parameters", { prompt: "hello", style: "precise", optimizeFor: "cost", provider: "nope" }, ["body.provider"]],
    ];
    for (const [name, body, fields] of cases) {
      const { status, json } = await post(server, `/api/ai/${name}`, body);
      expect([status, json.error?.code], `${name} ${JSON.stringify(body).slice(0, 80)}`).toEqual([400, "VALIDATION_ERROR"]);
      expect(json.error.details.errors.map((issue: Json) => issue.field).sort(), name).toEqual(fields);
    }
  });

  it("requires every request field docs/spec.md lists without `?`: 400 VALIDATION_ERROR naming the missing one", async () => {
    const server = await start(withWorkflows(createRuntime({ env: {} })));
    const required: Record<string, string[]> = {
      "analyze-usage": ["timeframe", "providers", "includeOptimizations"],
      "benchmark-performance": ["iterations", "testPrompts", "includeQualityMetrics"],
      "optimize-parameters": ["prompt", "style", "optimizeFor"],
      "generate-test-cases": ["codeFunction", "testTypes", "framework"],
      "refactor-code": ["sourceCode", "target", "focusAreas"],
      "generate-documentation": ["codeBase", "outputFormat", "includeExamples"],
      "debug-ai-output": ["aiResponse", "expectedFormat", "issueTypes"],
    };
    expect(Object.keys(required).sort()).toEqual(Object.keys(REQUESTS).sort());
    for (const [name, fields] of Object.entries(required)) {
      for (const field of fields) {
        const { [field]: _left, ...body } = REQUESTS[name] as Json;
        const { status, json } = await post(server, `/api/ai/${name}`, body);
        expect([status, json.error?.code], `${name} without ${field}`).toEqual([400, "VALIDATION_ERROR"]);
        expect(
          json.error.details.errors.map((issue: Json) => issue.field),
          `${name} without ${field}`,
        ).toEqual([`body.${field}`]);
      }
    }
    // The optional ones (`?` in docs/spec.md) stay optional.
    const { includeAlternatives: _alternatives, ...optimize } = REQUESTS["optimize-parameters"] as Json;
    expect((await post(server, "/api/ai/optimize-parameters", optimize)).status).toBe(200);
    expect((await post(server, "/api/ai/generate-documentation", REQUESTS["generate-documentation"])).status).toBe(200);
  });

  it("lets a provider answer through validated structured output, with one repair attempt", async () => {
    const runtime = remoteRuntime();
    const server = await start(withWorkflows(runtime, { providerTimeoutMs: 15_000 }));
    expect((await post(server, "/api/agent/execute", { input: { text: "count me" } })).status).toBe(200);
    for (const scenario of ["valid", "repair"] as StructuredScenario[]) {
      playScenario(fake, scenario);
      for (const name of AI_PATH) {
        const before = fake.requests.length;
        const { status, json } = await post(server, `/api/ai/${name}`, REQUESTS[name]);
        expect(status, `${scenario} ${name}`).toBe(200);
        expect(json.data, `${scenario} ${name}: ${json.data.fallbackReason}`).toMatchObject({
          simulated: false,
          provider: "openai",
          model: "gpt-4o-mini",
        });
        expect(fake.requests.length - before, `${scenario} ${name}`).toBe(scenario === "repair" ? 2 : 1);
      }
    }
    playScenario(fake, "valid");
    const usage = (await post(server, "/api/ai/analyze-usage", REQUESTS["analyze-usage"])).json.data;
    expect(usage.recommendations[0]).toMatchObject({ rule: "model", title: "Cache repeated prompts" });
    expect(usage.tokenUsage.byProvider.find((row: Json) => row.provider === "openai").calls).toBeGreaterThan(1);
    expect((await post(server, "/api/ai/optimize-parameters", REQUESTS["optimize-parameters"])).json.data.optimizedPrompt).toMatch(
      /^Model rewrite/,
    );
    expect((await post(server, "/api/ai/generate-test-cases", REQUESTS["generate-test-cases"])).json.data.unitTests[0].name).toBe(
      "add is a function (model)",
    );
    expect((await post(server, "/api/ai/refactor-code", REQUESTS["refactor-code"])).json.data.optimizedCode).toMatch(
      /^\/\/ refactored by the model/,
    );
    expect((await post(server, "/api/ai/generate-documentation", REQUESTS["generate-documentation"])).json.data.userGuides[0].title).toBe(
      "Model guide",
    );
    const debug = (await post(server, "/api/ai/debug-ai-output", REQUESTS["debug-ai-output"])).json.data;
    expect(debug.issues.filter((issue: Json) => issue.source === "model")).toHaveLength(0); // logic was not among the requested issue types
    expect(debug.analysis.issuesFound).toBe(debug.issues.length);
    const benchmark = (await post(server, "/api/ai/benchmark-performance", REQUESTS["benchmark-performance"])).json.data;
    expect(benchmark.latencyResults.map((row: Json) => row.provider).sort()).toEqual(["local", "openai"]);
    expect(benchmark.simulated).toBe(false);
    expect(benchmark.costEfficiency.find((row: Json) => row.provider === "openai")).toMatchObject({
      priced: true,
      totalCostUsd: expect.any(Number),
    });
    // The caller may pick the local provider: the simulated result, no provider call.
    const before = fake.requests.length;
    const local = (await post(server, "/api/ai/optimize-parameters", { ...REQUESTS["optimize-parameters"], provider: "local" })).json.data;
    expect(local).toMatchObject({ simulated: true, provider: null, model: null });
    expect(fake.requests.length).toBe(before);
  });

  it("falls back to the simulated result with fallbackReason on invalid output, a provider error or a hang", async () => {
    // A generous limit where the provider answers (a busy machine must not turn "invalid" into "timeout"), a short one for the hang.
    const answering = await start(withWorkflows(remoteRuntime(), { providerTimeoutMs: 15_000 }));
    const hanging = await start(withWorkflows(remoteRuntime(), { providerTimeoutMs: 400 }));
    for (const server of [answering, hanging])
      expect((await post(server, "/api/agent/execute", { input: { text: "count me" }, provider: "local" })).status).toBe(200);
    const reasons: Array<[StructuredScenario, RunningServer, RegExp]> = [
      ["invalid", answering, /returned invalid structured output twice/],
      ["error", answering, /failed: PROVIDER_/],
      ["hang", hanging, /did not answer within 400 ms/],
    ];
    for (const [scenario, server, reason] of reasons) {
      playScenario(fake, scenario);
      for (const name of AI_PATH) {
        const { status, json } = await post(server, `/api/ai/${name}`, REQUESTS[name]);
        expect(status, `${scenario} ${name}`).toBe(200);
        expect(json.data, `${scenario} ${name}`).toMatchObject({ simulated: true, provider: null, model: null });
        expect(json.data.fallbackReason, `${scenario} ${name}`).toMatch(reason);
      }
    }
    playScenario(fake, "valid");
  });

  it("documents the seven endpoints in the OpenAPI document", async () => {
    const server = await start(withWorkflows(createRuntime({ env: {} })));
    const document = (await (await fetch(server.url("/api/docs/openapi.json"))).json()) as Json;
    for (const name of Object.keys(REQUESTS)) {
      const operation = document.paths[`/api/ai/${name}`]?.post;
      expect(operation, name).toBeDefined();
      expect(operation.requestBody.content["application/json"].schema.type, name).toBe("object");
      expect(operation.responses["200"].content["application/json"].schema, name).toBeDefined();
    }
  });
});
