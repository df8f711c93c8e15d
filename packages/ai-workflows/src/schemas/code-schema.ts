import { z } from "zod";
import { WORKFLOW_LIMITS } from "./limits.js";

export const LANGUAGES = ["javascript", "typescript", "python", "ruby", "go"] as const;
export type Language = (typeof LANGUAGES)[number];
/** Languages read with a full parser (`@babel/parser`). */
export const PARSED_LANGUAGES = ["javascript", "typescript"] as const;

export const codeField = (description: string) => z.string().min(1).max(WORKFLOW_LIMITS.maxCodeCharacters).describe(description);

export const parameterInfoSchema = z.object({
  name: z.string(),
  type: z.string().nullable().describe("Annotated or inferred from the default value"),
  optional: z.boolean(),
  defaultValue: z.string().nullable(),
  rest: z.boolean(),
});

export const functionInfoSchema = z.object({
  name: z.string(),
  kind: z.enum(["function", "method", "arrow", "class"]),
  className: z.string().nullable(),
  params: z.array(parameterInfoSchema),
  returnType: z.string().nullable(),
  async: z.boolean(),
  generator: z.boolean(),
  exported: z.boolean(),
  line: z.number().int(),
  endLine: z.number().int(),
  branches: z.number().int().describe("if/ternary/switch case/logical/catch count"),
  throws: z.boolean(),
  documentation: z.string().nullable().describe("Its JSDoc or docstring text"),
});

export const parseIssueSchema = z.object({ message: z.string(), line: z.number().int(), column: z.number().int() });
