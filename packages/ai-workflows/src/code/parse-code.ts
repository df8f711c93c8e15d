import { type ParserPlugin, parse } from "@babel/parser";
import type { File } from "@babel/types";
import { walk } from "./ast-walk.js";

export interface ParseIssue {
  message: string;
  line: number;
  column: number;
}

export interface ParsedCode {
  /** Undefined when the code could not be read at all. */
  ast: File | undefined;
  language: "javascript" | "typescript";
  /** Errors the parser recovered from, or the one that stopped it. */
  errors: ParseIssue[];
  source: string;
}

function optionsFor(plugins: ParserPlugin[]) {
  return {
    sourceType: "unambiguous" as const,
    errorRecovery: true,
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    allowUndeclaredExports: true,
    plugins,
  };
}

function issueOf(error: unknown): ParseIssue {
  // Very deep nesting exhausts the parser's recursion: report it as the syntax problem it is.
  if (error instanceof RangeError) return { message: "Nesting too deep to parse", line: 1, column: 1 };
  const located = error as { message?: string; loc?: { line: number; column: number } };
  return {
    message: String(located.message ?? error).replace(/\s*\(\d+:\d+\)$/, ""),
    line: located.loc?.line ?? 1,
    column: (located.loc?.column ?? 0) + 1,
  };
}

function attempt(source: string, plugins: ParserPlugin[]): { ast?: File; errors: ParseIssue[] } {
  try {
    const ast = parse(source, optionsFor(plugins)) as File & { errors?: unknown[] | null };
    return { ast, errors: (ast.errors ?? []).map(issueOf) };
  } catch (error) {
    return { errors: [issueOf(error)] };
  }
}

/**
 * Parses JavaScript or TypeScript with `@babel/parser` (JSX too), recovering from errors where
 * it can. Without a language, TypeScript syntax is accepted and the language is read from the result.
 *
 * @example
 * const parsed = parseCode("export const add = (a: number, b: number) => a + b;");
 * parsed.language; // "typescript"
 */
export function parseCode(source: string, language?: "javascript" | "typescript"): ParsedCode {
  // One parse in the common case; JSX and plain-JavaScript readings only when the first fails.
  const looksLikeJsx = /<[A-Za-z][\w.-]*(\s[^<>]*)?\/?>/.test(source);
  const candidates: ParserPlugin[][] =
    language === "javascript"
      ? [["jsx"], ["jsx", "flow"]]
      : [
          ["typescript", "decorators-legacy"],
          ...(looksLikeJsx ? [["typescript", "jsx", "decorators-legacy"] as ParserPlugin[]] : []),
          ...(language ? [] : [["jsx"] as ParserPlugin[]]),
        ];
  let best: { ast?: File; errors: ParseIssue[]; plugins: ParserPlugin[] } | undefined;
  for (const plugins of candidates) {
    const result = { ...attempt(source, plugins), plugins };
    if (result.ast && result.errors.length === 0) {
      best = result;
      break;
    }
    if (!best || (result.ast && (!best.ast || result.errors.length < best.errors.length))) best = result;
  }
  let chosen = best as { ast?: File; errors: ParseIssue[]; plugins: ParserPlugin[] };
  if (!chosen.ast) chosen = salvagePrefix(source, chosen);
  let detected: "javascript" | "typescript" = language ?? "javascript";
  if (!language && chosen.ast && chosen.plugins.includes("typescript")) {
    let typed = false;
    walk(chosen.ast.program, (node) => {
      if (typed) return false;
      typed = node.type.startsWith("TS");
      return !typed;
    });
    detected = typed ? "typescript" : "javascript";
  }
  return { ast: chosen.ast, language: detected, errors: chosen.errors, source };
}

/**
 * Code cut off mid-way (pasted or truncated) stops the parser with no tree at all: read the part
 * up to the last top-level block that closes before the error, so its functions are still found.
 */
function salvagePrefix(
  source: string,
  failed: { errors: ParseIssue[]; plugins: ParserPlugin[] },
): { ast?: File; errors: ParseIssue[]; plugins: ParserPlugin[] } {
  const errorLine = failed.errors[0]?.line ?? 1;
  const lines = source.split("\n", errorLine);
  for (let index = Math.min(errorLine, lines.length) - 2; index > 0; index--) {
    if (!/^[}\]];?\s*$/.test(lines[index] as string)) continue;
    const prefix = lines.slice(0, index + 1).join("\n");
    const result = attempt(prefix, failed.plugins);
    if (result.ast) return { ast: result.ast, errors: [...failed.errors, ...result.errors], plugins: failed.plugins };
    break;
  }
  return failed;
}

/** True when the code parses without any error (used to check emitted and rewritten code). */
export function parsesCleanly(source: string, language: "javascript" | "typescript" = "typescript"): boolean {
  const result = attempt(source, language === "typescript" ? ["typescript"] : ["jsx"]);
  return result.ast !== undefined && result.errors.length === 0;
}
