import { z } from "zod";
import type { DebugIssue } from "../schemas/debug-ai-output-schema.js";
import type { IssueList } from "./issue-list.js";
import type { TextPositions } from "./text-positions.js";

/** Nested quantifiers (`(a+)+`) can backtrack for ages on a crafted string: such patterns are not evaluated. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

/** Drops `pattern` keywords that are unsafe to run, and reports them. */
function withSafePatterns(schema: unknown, dropped: string[], depth = 0): unknown {
  if (depth > 64) throw new RangeError("schema too deeply nested");
  if (Array.isArray(schema)) return schema.map((item) => withSafePatterns(item, dropped, depth + 1));
  if (typeof schema !== "object" || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "__proto__") continue;
    if (
      (key === "pattern" && typeof value === "string" && (value.length > 500 || NESTED_QUANTIFIER.test(value))) ||
      key === "patternProperties"
    ) {
      dropped.push(String(value).slice(0, 80));
      continue;
    }
    copy[key] = withSafePatterns(value, dropped, depth + 1);
  }
  return copy;
}

/** A JSON Schema as a zod schema; throws with a readable message when it cannot be used. */
export function compileJsonSchema(schema: Record<string, unknown>): { validator: z.ZodType; droppedPatterns: string[] } {
  const droppedPatterns: string[] = [];
  const safe = withSafePatterns(schema, droppedPatterns) as Record<string, unknown>;
  try {
    const validator = z.fromJSONSchema(safe as Parameters<typeof z.fromJSONSchema>[0]);
    // References resolve lazily: a schema that is only a reference to itself loops on the first value.
    for (const sample of [null, {}, [], ""]) validator.safeParse(sample);
    return { validator, droppedPatterns };
  } catch (error) {
    throw new Error(
      error instanceof RangeError ? "the schema is recursive or too deeply nested" : error instanceof Error ? error.message : String(error),
    );
  }
}

/** Whether the value at `path` exists (zod does not report the input of an issue). */
export function presentAt(value: unknown, path: readonly PropertyKey[]): boolean {
  let node = value;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node !== undefined;
}

function typeOfIssue(issue: z.core.$ZodIssue, value: unknown): DebugIssue["type"] {
  if (issue.code === "invalid_type") return presentAt(value, issue.path) ? "type-mismatch" : "completeness";
  return "format";
}

/**
 * Validates a parsed value against the expected JSON Schema: missing required fields
 * (completeness), wrong types (type-mismatch), other constraints (format) — each located.
 */
export function checkSchema(
  value: unknown,
  validator: z.ZodType,
  pathOffsets: Map<string, number> | undefined,
  jsonOffset: number,
  positions: TextPositions,
  issues: IssueList,
): void {
  const result = validator.safeParse(value);
  if (result.success) return;
  for (const issue of result.error.issues.slice(0, 200)) {
    const path = issue.path.map(String).join(".");
    const type = typeOfIssue(issue, value);
    let located = path;
    while (pathOffsets && !pathOffsets.has(located) && located !== "")
      located = located.includes(".") ? located.slice(0, located.lastIndexOf(".")) : "";
    const offset = pathOffsets?.get(located);
    const where = offset === undefined ? {} : positions.at(jsonOffset + offset);
    const description =
      type === "completeness"
        ? `Missing required field "${path}"`
        : type === "type-mismatch"
          ? `"${path || "(root)"}" has the wrong type: ${issue.message}`
          : `"${path || "(root)"}" breaks the schema: ${issue.message}`;
    issues.add({
      type,
      severity: type === "completeness" ? "high" : type === "type-mismatch" ? "high" : "medium",
      description,
      ...where,
      path: path || "(root)",
      suggestion:
        type === "completeness"
          ? `Add "${path}"`
          : type === "type-mismatch"
            ? "Convert the value to the schema's type (correctedOutput converts what it safely can)"
            : "Change the value to satisfy the schema",
    });
  }
}
