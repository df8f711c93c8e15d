import { parseDocument } from "yaml";
import { parseCode } from "../code/parse-code.js";
import type { IssueList } from "./issue-list.js";
import type { TextPositions } from "./text-positions.js";

/** Deepest nesting of YAML flow collections (`[`/`{`), quotes skipped. */
export function yamlFlowDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quote: string | undefined;
  for (const character of text) {
    if (quote) {
      if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === "[" || character === "{") deepest = Math.max(deepest, ++depth);
    else if ((character === "]" || character === "}") && depth > 0) depth--;
    else if (character === "\n") quote = undefined;
  }
  return deepest;
}

/**
 * The `yaml` parser compiles a regular expression that grows with flow-collection nesting and
 * exhausts memory (the whole process) at a few thousand levels: deeper input is not parsed.
 */
export const MAX_YAML_FLOW_DEPTH = 100;

/** True when `yaml` may safely parse the text. */
export function yamlParsable(text: string): boolean {
  return yamlFlowDepth(text) <= MAX_YAML_FLOW_DEPTH;
}

/** YAML syntax errors and warnings with line and column (the `yaml` package's own positions). */
export function checkYaml(text: string, offset: number, positions: TextPositions, issues: IssueList): { ok: boolean } {
  if (!yamlParsable(text)) {
    issues.add({
      type: "format",
      severity: "high",
      description: `YAML flow collections nested deeper than ${MAX_YAML_FLOW_DEPTH} levels (not parsed)`,
      ...positions.at(offset),
      suggestion: "Flatten the structure",
    });
    return { ok: false };
  }
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  for (const error of document.errors.slice(0, 50)) {
    const where = positions.at(offset + (error.pos[0] ?? 0));
    const duplicate = error.code === "DUPLICATE_KEY";
    issues.add({
      type: duplicate ? "logic" : "format",
      severity: duplicate ? "medium" : "high",
      description: `${duplicate ? "" : "Invalid YAML: "}${error.message.split("\n")[0]}`,
      line: where.line,
      column: where.column,
      suggestion: duplicate ? "Remove or merge the duplicate key" : "Fix the indentation or quoting at this position",
    });
  }
  return { ok: document.errors.length === 0 };
}

export interface FencedBlock {
  language: string;
  content: string;
  /** Offset of the content in the analyzed text. */
  offset: number;
  line: number;
  closed: boolean;
}

/** Fenced code blocks (``` or ~~~), including one left open at the end. */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split("\n");
  let offset = 0;
  let open: { fence: string; language: string; offset: number; line: number; start: number } | undefined;
  for (const [index, line] of lines.entries()) {
    const fence = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (!open && fence)
      open = {
        fence: fence[1] as string,
        language: (fence[2] ?? "").toLowerCase(),
        offset: offset + line.length + 1,
        line: index + 1,
        start: offset,
      };
    else if (
      open &&
      fence &&
      (fence[1] as string).startsWith(open.fence[0] as string) &&
      (fence[1] as string).length >= open.fence.length &&
      (fence[2] ?? "") === ""
    ) {
      blocks.push({
        language: open.language,
        content: text.slice(open.offset, offset),
        offset: open.offset,
        line: open.line,
        closed: true,
      });
      open = undefined;
    }
    offset += line.length + 1;
  }
  if (open)
    blocks.push({
      language: open.language,
      content: text.slice(Math.min(open.offset, text.length)),
      offset: Math.min(open.offset, text.length),
      line: open.line,
      closed: false,
    });
  return blocks;
}

/** Markdown structure: unclosed fences, skipped heading levels, empty links, ragged tables. */
export function checkMarkdown(text: string, positions: TextPositions, issues: IssueList, blocks: FencedBlock[]): void {
  for (const block of blocks.filter((item) => !item.closed)) {
    issues.add({
      type: "completeness",
      severity: "high",
      description: "A code fence is opened and never closed (the output may be cut off)",
      line: block.line,
      column: 1,
      suggestion: "Close the fence with ```",
    });
  }
  const lines = text.split("\n");
  let previousLevel = 0;
  let inFence = false;
  let tableColumns: number | undefined;
  for (const [index, line] of lines.entries()) {
    if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = /^(#{1,6})\s+\S/.exec(line);
    if (heading) {
      const level = (heading[1] as string).length;
      if (previousLevel > 0 && level > previousLevel + 1)
        issues.add({
          type: "format",
          severity: "low",
          description: `Heading jumps from level ${previousLevel} to ${level}`,
          line: index + 1,
          column: 1,
          suggestion: `Use ${"#".repeat(previousLevel + 1)} here`,
        });
      previousLevel = level;
    }
    for (const link of line.matchAll(/\[([^\]\n]{0,200})\]\(\s*\)/g)) {
      issues.add({
        type: "completeness",
        severity: "medium",
        description: `Link "${link[1]}" has no target`,
        line: index + 1,
        column: (link.index ?? 0) + 1,
        suggestion: "Add the URL or remove the link",
      });
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const columns = line
        .trim()
        .replace(/^\||\|$/g, "")
        .split("|").length;
      if (tableColumns !== undefined && columns !== tableColumns)
        issues.add({
          type: "format",
          severity: "medium",
          description: `Table row has ${columns} cells, the header has ${tableColumns}`,
          line: index + 1,
          column: 1,
          suggestion: "Make every row have the same number of cells",
        });
      tableColumns ??= columns;
    } else tableColumns = undefined;
  }
  void positions;
}

/** JavaScript/TypeScript syntax errors of a code text, located in the analyzed output. */
export function checkCode(
  code: string,
  offset: number,
  language: "javascript" | "typescript" | undefined,
  positions: TextPositions,
  issues: IssueList,
  limit = 20,
): boolean {
  const parsed = parseCode(code, language);
  const startLine = positions.at(offset).line;
  for (const error of parsed.errors.slice(0, limit)) {
    issues.add({
      type: "format",
      severity: "high",
      description: `Invalid ${parsed.language === "typescript" ? "TypeScript" : "JavaScript"}: ${error.message}`,
      line: startLine + error.line - 1,
      column: error.column,
      suggestion: "Fix the syntax at this position",
    });
  }
  return parsed.errors.length === 0;
}
