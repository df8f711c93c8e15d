import { ServerValidationError } from "@conduit-ai/server-core";
import { z } from "zod";
import { collectFunctions } from "../code/collect-functions.js";
import type { FunctionFact } from "../code/function-facts.js";
import { parseCode, parsesCleanly } from "../code/parse-code.js";
import type { ModelStep } from "../provider/run-workflow.js";
import type { Language } from "../schemas/code-schema.js";
import type { ResultMeta } from "../schemas/common.js";
import {
  type GenerateTestCasesRequest,
  type GenerateTestCasesResult,
  TEST_TYPES,
  type TestCase,
  type TestFramework,
} from "../schemas/generate-test-cases-schema.js";
import { jsTests } from "./js-test-file.js";
import { otherLanguageTests } from "./other-language-tests.js";

type TestGeneration = Omit<GenerateTestCasesResult, keyof ResultMeta>;

/** The language each framework tests. */
export const FRAMEWORK_LANGUAGE: Record<TestFramework, "js" | "python" | "ruby" | "go"> = {
  jest: "js",
  mocha: "js",
  vitest: "js",
  "node-test": "js",
  pytest: "python",
  unittest: "python",
  rspec: "ruby",
  "go-test": "go",
};

function languageOf(request: GenerateTestCasesRequest): Language {
  const family = FRAMEWORK_LANGUAGE[request.framework];
  if (request.language) {
    const requestedFamily = request.language === "javascript" || request.language === "typescript" ? "js" : request.language;
    if (requestedFamily !== family) {
      throw new ServerValidationError("Request validation failed", [
        {
          field: "body.framework",
          message: `${request.framework} tests ${family === "js" ? "JavaScript/TypeScript" : family} code, but language is ${request.language}`,
          value: request.framework,
        },
      ]);
    }
    return request.language;
  }
  return family === "js" ? "typescript" : family;
}

export function functionInfo(fact: FunctionFact): GenerateTestCasesResult["functions"][number] {
  const {
    node: _node,
    jsdoc: _jsdoc,
    conditions: _conditions,
    calls: _calls,
    exportName: _exportName,
    isStatic: _isStatic,
    returnsValue: _returnsValue,
    ...info
  } = fact;
  return info;
}

function byType(cases: TestCase[]) {
  const pick = (type: TestCase["type"]) => cases.filter((item) => item.type === type);
  return {
    unitTests: pick("unit"),
    edgeCases: pick("edge-cases"),
    integrationTests: pick("integration"),
    performanceTests: pick("performance"),
    securityTests: pick("security"),
  };
}

/**
 * `generate-test-cases` without a model: parses the code, finds its functions, parameters,
 * branches, exports and JSDoc, and writes tests in the framework that name the real functions:
 * typical calls, boundary values of every parameter condition, hostile inputs, throughput guards.
 */
export function generateTestCases(request: GenerateTestCasesRequest): TestGeneration {
  const language = languageOf(request);
  if (language !== "javascript" && language !== "typescript") {
    const generated = otherLanguageTests(request.codeFunction, language, request.framework, request.testTypes, request.modulePath);
    return {
      ...byType(generated.cases),
      testFile: generated.testFile,
      framework: request.framework,
      language,
      functions: generated.functions,
      parseErrors: [],
      warnings: generated.warnings,
    };
  }
  const parsed = parseCode(request.codeFunction, request.language as "javascript" | "typescript" | undefined);
  const facts = collectFunctions(parsed);
  const warnings: string[] = [];
  if (!parsed.ast) warnings.push("The code could not be parsed, so no functions were found; see parseErrors.");
  else if (facts.length === 0) warnings.push("No functions, classes or methods were found at the top level of the code.");
  const generated = jsTests(facts, request.testTypes, request.framework, request.modulePath, parsed.language === "typescript");
  return {
    ...byType(generated.cases),
    testFile: generated.testFile,
    framework: request.framework,
    language: parsed.language,
    functions: facts.map(functionInfo),
    parseErrors: parsed.errors.slice(0, 50),
    warnings: [...warnings, ...generated.warnings],
  };
}

/** The AI path: the model writes the tests; each must parse and name a function of the code. */
export function testCasesModelStep(
  request: GenerateTestCasesRequest,
): (simulated: TestGeneration) => ModelStep<TestGeneration, { tests: TestCase[] }> | undefined {
  return (simulated) => {
    const js = FRAMEWORK_LANGUAGE[request.framework] === "js";
    const names = new Set(
      simulated.functions.flatMap((fact) => [fact.name, fact.className ? `${fact.className}.${fact.name}` : fact.name]),
    );
    if (names.size === 0) return undefined;
    const schema = z.object({
      tests: z
        .array(
          z.object({
            name: z.string().min(1).max(300),
            functionName: z.string().refine((name) => names.has(name), { message: `must be one of: ${[...names].join(", ")}` }),
            type: z.enum(request.testTypes as [TestCase["type"], ...TestCase["type"][]]),
            description: z.string(),
            code: z
              .string()
              .min(1)
              .refine((code) => !js || parsesCleanly(code), { message: "must be valid JavaScript/TypeScript (it does not parse)" }),
          }),
        )
        .min(1)
        .max(60),
    });
    const header = simulated.testFile.split("\n\n")[0] ?? "";
    return {
      instructions: `Write ${request.framework} tests (types: ${request.testTypes.join(", ")}) for the code below. Each test is one self-contained test block (for ${js ? "JavaScript: it(...)" : request.framework}) that calls the real functions, imported as in this header:\n${header}`,
      prompt: `Code:\n${request.codeFunction}\n\nFunctions found: ${JSON.stringify(simulated.functions.map((fact) => ({ name: fact.name, className: fact.className, params: fact.params, returnType: fact.returnType, async: fact.async, throws: fact.throws })))}`,
      schema,
      merge: (generation, output) => {
        const cases = output.tests.map((test) => ({ ...test }));
        const blocks = cases.map((test) => test.code).join("\n\n");
        const testFile = `${header}\n\n${blocks}\n`;
        if (js && !parsesCleanly(testFile)) throw new Error("the model's tests do not form a valid file");
        return { ...generation, ...byType(cases), testFile };
      },
    };
  };
}

export { TEST_TYPES };
