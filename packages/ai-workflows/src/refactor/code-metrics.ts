import type { Node } from "@babel/types";
import { isFunctionNode, walk } from "../code/ast-walk.js";
import type { ParsedCode } from "../code/parse-code.js";
import type { CodeMetrics } from "../schemas/refactor-code-schema.js";

const DECISIONS = new Set([
  "IfStatement",
  "ConditionalExpression",
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
  "CatchClause",
]);
const NESTING = new Set([
  "IfStatement",
  "ForStatement",
  "ForInStatement",
  "ForOfStatement",
  "WhileStatement",
  "DoWhileStatement",
  "SwitchStatement",
  "TryStatement",
]);
const TRIVIAL_NUMBERS = new Set([0, 1, -1, 2, 10, 100, 1000]);

/** Literal values worth naming: strings of 3+ characters and numbers other than the usual 0, 1, 2, 10… */
export function literalKey(node: Node, parent: Node | undefined): string | undefined {
  if (
    parent &&
    (parent.type === "ImportDeclaration" ||
      parent.type === "ExportAllDeclaration" ||
      parent.type === "ExportNamedDeclaration" ||
      parent.type === "TSLiteralType" ||
      parent.type === "TSEnumMember" ||
      parent.type === "TSExternalModuleReference" ||
      parent.type === "JSXAttribute")
  )
    return undefined;
  if (
    parent &&
    (parent.type === "ObjectProperty" ||
      parent.type === "ClassProperty" ||
      parent.type === "ObjectMethod" ||
      parent.type === "ClassMethod") &&
    (parent as { key: Node }).key === node &&
    !(parent as { computed?: boolean }).computed
  )
    return undefined;
  if (parent?.type === "CallExpression" && parent.callee.type === "Identifier" && parent.callee.name === "require") return undefined;
  if (parent?.type === "CallExpression" && parent.callee.type === "Import") return undefined;
  if (node.type === "StringLiteral" && node.value.length >= 3) return `s:${node.value}`;
  if (node.type === "NumericLiteral" && !TRIVIAL_NUMBERS.has(node.value)) return `n:${node.value}`;
  return undefined;
}

/**
 * Structural figures of a parsed module: non-blank lines, functions, cyclomatic complexity
 * (1 per function plus its decision points), deepest control nesting, longest function,
 * loose equalities, `var` declarations and literal values repeated 3 or more times.
 */
export function codeMetrics(parsed: ParsedCode): CodeMetrics {
  const metrics: CodeMetrics = {
    lines: parsed.source.split("\n").filter((line) => line.trim() !== "").length,
    functions: 0,
    cyclomaticComplexity: 1,
    maxNestingDepth: 0,
    longestFunctionLines: 0,
    looseEqualities: 0,
    varDeclarations: 0,
    duplicatedLiterals: 0,
  };
  if (!parsed.ast) return metrics;
  const literals = new Map<string, number>();
  walk(parsed.ast.program, (node, parent, ancestors) => {
    if (isFunctionNode(node)) {
      metrics.functions++;
      metrics.cyclomaticComplexity++;
      metrics.longestFunctionLines = Math.max(metrics.longestFunctionLines, (node.loc?.end.line ?? 0) - (node.loc?.start.line ?? 0) + 1);
    }
    if (DECISIONS.has(node.type) || (node.type === "SwitchCase" && node.test !== null)) metrics.cyclomaticComplexity++;
    if (node.type === "LogicalExpression") metrics.cyclomaticComplexity++;
    if (NESTING.has(node.type)) {
      let depth = 1;
      for (const ancestor of ancestors) {
        if (isFunctionNode(ancestor)) depth = 1;
        else if (NESTING.has(ancestor.type)) depth++;
      }
      metrics.maxNestingDepth = Math.max(metrics.maxNestingDepth, depth);
    }
    if (node.type === "BinaryExpression" && (node.operator === "==" || node.operator === "!=")) metrics.looseEqualities++;
    if (node.type === "VariableDeclaration" && node.kind === "var") metrics.varDeclarations++;
    const key = literalKey(node, parent);
    if (key) literals.set(key, (literals.get(key) ?? 0) + 1);
    return undefined;
  });
  metrics.duplicatedLiterals = [...literals.values()].filter((count) => count >= 3).length;
  return metrics;
}
