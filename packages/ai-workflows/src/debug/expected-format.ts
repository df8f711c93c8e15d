import { ServerValidationError } from "@conduit-ai/server-core";
import type { z } from "zod";
import { FORMAT_NAMES, type FormatName } from "../schemas/debug-ai-output-schema.js";
import { compileJsonSchema } from "./check-schema.js";

export interface ExpectedFormat {
  name: FormatName | "json-schema";
  validator?: z.ZodType;
  droppedPatterns: string[];
}

function invalid(message: string): ServerValidationError {
  return new ServerValidationError("Request validation failed", [{ field: "body.expectedFormat", message }]);
}

/** `expectedFormat` as a format name, or a JSON Schema (object or JSON text) compiled for validation; else 400. */
export function resolveExpectedFormat(expected: string | Record<string, unknown>): ExpectedFormat {
  let schema: unknown = expected;
  if (typeof expected === "string") {
    const name = expected.trim().toLowerCase();
    if ((FORMAT_NAMES as readonly string[]).includes(name)) return { name: name as FormatName, droppedPatterns: [] };
    if (name === "code") return { name: "typescript", droppedPatterns: [] };
    if (name === "yml") return { name: "yaml", droppedPatterns: [] };
    if (name === "md") return { name: "markdown", droppedPatterns: [] };
    try {
      schema = JSON.parse(expected);
    } catch {
      throw invalid(`Expected a format name (${FORMAT_NAMES.join(", ")}) or a JSON Schema`);
    }
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) throw invalid("A JSON Schema must be an object");
  try {
    const { validator, droppedPatterns } = compileJsonSchema(schema as Record<string, unknown>);
    return { name: "json-schema", validator, droppedPatterns };
  } catch (error) {
    throw invalid(`The JSON Schema cannot be used: ${(error as Error).message}`);
  }
}
