import type { IssueList } from "./issue-list.js";
import type { TextPositions } from "./text-positions.js";

/** Where a JSON.parse error happened: V8 names the position (and on newer Node the line and column). */
function errorOffset(message: string, text: string): number {
  const position = /at position (\d+)/.exec(message);
  if (position) return Number(position[1]);
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) {
    const lines = text.split("\n").slice(0, Number(lineColumn[1]) - 1);
    return lines.reduce((sum, line) => sum + line.length + 1, 0) + Number(lineColumn[2]) - 1;
  }
  return text.length;
}

const clean = (message: string) => message.replace(/\s*in JSON at position \d+.*$/, "").replace(/\s*\(line \d+ column \d+\)$/, "");

export interface JsonReading {
  ok: boolean;
  value?: unknown;
  /** Offset of the JSON text within the analyzed output. */
  offset: number;
  text: string;
}

/**
 * Parses the JSON of an output and reports syntax errors with line and column; an error at the
 * very end means the output was cut off (completeness) rather than malformed.
 */
export function checkJson(text: string, offset: number, positions: TextPositions, issues: IssueList): JsonReading {
  try {
    return { ok: true, value: JSON.parse(text), offset, text };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = errorOffset(message, text);
    const where = positions.at(offset + at);
    const truncated = at >= text.trimEnd().length || /end of (JSON )?input|Unterminated string/i.test(message);
    if (truncated) {
      issues.add({
        type: "completeness",
        severity: "critical",
        description: "The JSON ends before it is complete (the output was cut off)",
        ...where,
        suggestion: "Raise maxTokens or ask for a shorter answer; correctedOutput closes the open strings, arrays and objects",
      });
    } else {
      issues.add({
        type: "format",
        severity: "high",
        description: `Invalid JSON: ${clean(message)}`,
        ...where,
        suggestion: "Fix the syntax at this position (correctedOutput does it where possible)",
      });
    }
    return { ok: false, offset, text };
  }
}

type Frame =
  | { kind: "object"; path: string; keys: Set<string>; key: string; expectKey: boolean }
  | { kind: "array"; path: string; index: number };

function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const character = text.charCodeAt(index);
    if (character === 92) index++;
    else if (character === 34) return index;
  }
  return text.length - 1;
}

/**
 * One pass over JSON text that `JSON.parse` accepted: the offset of every value by path
 * (`a.b.0`, for locating schema issues) and keys repeated within one object (which
 * `JSON.parse` silently collapses). Iterative, so nesting depth cannot overflow the stack.
 */
export function scanJson(
  text: string,
  withOffsets: boolean,
): { offsets: Map<string, number>; duplicates: Array<{ key: string; offset: number }> } {
  const offsets = new Map<string, number>();
  const duplicates: Array<{ key: string; offset: number }> = [];
  const stack: Frame[] = [];
  const valuePath = (): string => {
    const top = stack.at(-1);
    if (!top) return "";
    const segment = top.kind === "object" ? top.key : String(top.index);
    return top.path === "" ? segment : `${top.path}.${segment}`;
  };
  const record = (offset: number) => {
    if (withOffsets && offsets.size < 200_000) offsets.set(valuePath(), offset);
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index] as string;
    if (character === " " || character === "\n" || character === "\r" || character === "\t" || character === ":") {
      index++;
    } else if (character === '"') {
      const end = stringEnd(text, index);
      const top = stack.at(-1);
      if (top?.kind === "object" && top.expectKey) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (top.keys.has(key) && duplicates.length < 50) duplicates.push({ key, offset: index });
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      } else record(index);
      index = end + 1;
    } else if (character === "{" || character === "[") {
      record(index);
      const path = valuePath();
      stack.push(
        character === "{" ? { kind: "object", path, keys: new Set(), key: "", expectKey: true } : { kind: "array", path, index: 0 },
      );
      index++;
    } else if (character === "}" || character === "]") {
      stack.pop();
      index++;
    } else if (character === ",") {
      const top = stack.at(-1);
      if (top?.kind === "object") top.expectKey = true;
      else if (top) top.index++;
      index++;
    } else {
      record(index);
      while (index < text.length && !",]} \n\r\t".includes(text[index] as string)) index++;
    }
  }
  return { offsets, duplicates };
}

/** Object keys that appear twice in one object (JSON.parse keeps the last silently). */
export function reportDuplicateKeys(
  duplicates: Array<{ key: string; offset: number }>,
  jsonOffset: number,
  positions: TextPositions,
  issues: IssueList,
): void {
  for (const duplicate of duplicates) {
    issues.add({
      type: "logic",
      severity: "medium",
      description: `Key "${duplicate.key}" appears twice in one object; parsers keep only the last value`,
      ...positions.at(jsonOffset + duplicate.offset),
      suggestion: "Remove or merge the duplicate key",
    });
  }
}
