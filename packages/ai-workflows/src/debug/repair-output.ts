import { jsonrepair } from "jsonrepair";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { type FencedBlock, yamlParsable } from "./check-text.js";

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Converts values the schema wants as another primitive, where the conversion loses nothing. */
function coerce(value: unknown, validator: z.ZodType): unknown {
  for (let round = 0; round < 3; round++) {
    const result = validator.safeParse(value);
    if (result.success) return value;
    let changed = false;
    for (const issue of result.error.issues) {
      if (issue.code !== "invalid_type" || issue.path.length === 0 || issue.path.some((key) => UNSAFE_KEYS.has(String(key)))) continue;
      const parent = issue.path
        .slice(0, -1)
        .reduce<unknown>(
          (node, key) => (node && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined),
          value,
        );
      if (!parent || typeof parent !== "object") continue;
      const key = issue.path.at(-1) as PropertyKey;
      const current = (parent as Record<PropertyKey, unknown>)[key];
      let next: unknown = current;
      if (issue.expected === "number" && typeof current === "string" && current.trim() !== "" && Number.isFinite(Number(current)))
        next = Number(current);
      else if (issue.expected === "boolean" && (current === "true" || current === "false")) next = current === "true";
      else if (issue.expected === "string" && (typeof current === "number" || typeof current === "boolean")) next = String(current);
      else if (issue.expected === "array" && current !== undefined && current !== null && !Array.isArray(current)) next = [current];
      if (next !== current) {
        (parent as Record<PropertyKey, unknown>)[key] = next;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return value;
}

/** The value of JSON repaired by `jsonrepair` (quotes, commas, comments, truncation); undefined when hopeless. */
export function repairJsonValue(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(jsonrepair(text)) };
  } catch {
    return undefined;
  }
}

/** A JSON value as the corrected output: types coerced to the schema where nothing is lost, pretty-printed. */
export function correctedJson(value: unknown, validator: z.ZodType | undefined): string | undefined {
  return JSON.stringify(validator ? coerce(structuredClone(value), validator) : value, null, 2);
}

/** YAML with tab indentation replaced; undefined when it still does not parse. */
export function repairYaml(text: string): string | undefined {
  const fixed = text.replace(/^\t+/gm, (tabs) => "  ".repeat(tabs.length));
  if (!yamlParsable(fixed)) return undefined;
  return parseDocument(fixed).errors.length === 0 ? fixed : undefined;
}

/** Markdown with every unclosed code fence closed. */
export function repairMarkdown(text: string, blocks: FencedBlock[]): string | undefined {
  const open = blocks.filter((block) => !block.closed);
  if (open.length === 0) return undefined;
  return `${text.replace(/\s*$/, "")}\n\`\`\`\n`;
}
