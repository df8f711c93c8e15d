import { z } from "zod";
import { distinctList, providerSelectionShape, resultMetaShape } from "./common.js";
import { LANGUAGES, codeField, functionInfoSchema, parseIssueSchema } from "./code-schema.js";

export const TEST_TYPES = ["unit", "integration", "edge-cases", "performance", "security"] as const;
export type TestType = (typeof TEST_TYPES)[number];
export const TEST_FRAMEWORKS = ["jest", "mocha", "vitest", "node-test", "pytest", "unittest", "rspec", "go-test"] as const;
export type TestFramework = (typeof TEST_FRAMEWORKS)[number];

export const generateTestCasesRequestSchema = z.object({
  codeFunction: codeField("Source of the function(s) or module to test"),
  testTypes: distinctList(z.enum(TEST_TYPES), 1, TEST_TYPES.length),
  framework: z
    .enum(TEST_FRAMEWORKS)
    .describe("jest, mocha, vitest, node-test test JavaScript/TypeScript; pytest, unittest Python; rspec Ruby; go-test Go"),
  language: z
    .enum(LANGUAGES)
    .optional()
    .describe("Language of the code (default: the framework's; JavaScript frameworks parse TypeScript too)"),
  modulePath: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w@./-]+$/, "letters, digits, _ @ . / - only")
    .default("./module")
    .describe("Where the tests import the code from"),
  ...providerSelectionShape,
});
export type GenerateTestCasesRequest = z.output<typeof generateTestCasesRequestSchema>;

export const testCaseSchema = z.object({
  name: z.string().min(1).max(300),
  functionName: z.string().min(1),
  type: z.enum(TEST_TYPES),
  description: z.string(),
  code: z.string().min(1).describe("One test, valid code for the framework"),
});
export type TestCase = z.infer<typeof testCaseSchema>;

export const generateTestCasesResultSchema = z.object({
  unitTests: z.array(testCaseSchema),
  edgeCases: z.array(testCaseSchema),
  integrationTests: z.array(testCaseSchema),
  performanceTests: z.array(testCaseSchema),
  securityTests: z.array(testCaseSchema),
  testFile: z.string().describe("Every test above in one file, imports included"),
  framework: z.enum(TEST_FRAMEWORKS),
  language: z.enum(LANGUAGES),
  functions: z.array(functionInfoSchema),
  parseErrors: z.array(parseIssueSchema),
  warnings: z.array(z.string()),
  ...resultMetaShape,
});
export type GenerateTestCasesResult = z.output<typeof generateTestCasesResultSchema>;
