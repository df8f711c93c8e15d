import { z } from "zod";
import { invalidField } from "../runtime-errors.js";
import { evaluateArithmetic } from "./arithmetic.js";
import type { ToolDefinition } from "./runtime-tool.js";

const currentTimeSchema = z.object({
  timezone: z
    .string()
    .default("UTC")
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, "Unknown IANA time zone")
    .describe("IANA time zone, e.g. Europe/Paris"),
});

/** `current_time`: the current date and time in an IANA time zone. */
export const currentTimeTool: ToolDefinition<typeof currentTimeSchema> = {
  name: "current_time",
  description: "Get the current date and time in an IANA time zone",
  schema: currentTimeSchema,
  source: "builtin",
  execute: ({ timezone }) => {
    const now = new Date();
    const local = new Intl.DateTimeFormat("en-CA", {
      timeZone: timezone,
      dateStyle: "short",
      timeStyle: "medium",
      hourCycle: "h23",
    }).format(now);
    return { timezone, iso: now.toISOString(), local, unixMs: now.getTime() };
  },
};

const calculatorSchema = z.object({
  expression: z.string().min(1).max(500).describe("Arithmetic expression with + - * / % ^ and parentheses"),
});

/** `calculator`: evaluates an arithmetic expression safely (no eval). */
export const calculatorTool: ToolDefinition<typeof calculatorSchema> = {
  name: "calculator",
  description: "Evaluate an arithmetic expression (+ - * / % ^ and parentheses)",
  schema: calculatorSchema,
  source: "builtin",
  execute: ({ expression }) => {
    try {
      return { expression, value: evaluateArithmetic(expression) };
    } catch (error) {
      // A malformed expression is the caller's mistake: a 400 naming the field, not a 500.
      throw invalidField("expression", (error as Error).message);
    }
  },
};

const textStatsSchema = z.object({ text: z.string().describe("Text to measure") });

/** `text_stats`: characters, words, sentences and lines of a text. */
export const textStatsTool: ToolDefinition<typeof textStatsSchema> = {
  name: "text_stats",
  description: "Count characters, words, sentences and lines of a text",
  schema: textStatsSchema,
  source: "builtin",
  execute: ({ text }) => ({
    characters: text.length,
    words: text.trim() === "" ? 0 : text.trim().split(/\s+/).length,
    sentences: text.split(/[.!?]+/).filter((part) => part.trim() !== "").length,
    lines: text === "" ? 0 : text.split(/\r?\n/).length,
  }),
};

/** The runtime's built-in tools, registered unless `builtinTools: false`. */
export const builtinTools: ToolDefinition[] = [currentTimeTool, calculatorTool, textStatsTool] as unknown as ToolDefinition[];
