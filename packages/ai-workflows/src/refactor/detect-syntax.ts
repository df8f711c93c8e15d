import type { BinaryExpression, Node, VariableDeclaration } from "@babel/types";
import { isFunctionNode, textOf, walk } from "../code/ast-walk.js";
import type { ParsedCode } from "../code/parse-code.js";
import type { Improvement } from "../schemas/refactor-code-schema.js";
import type { Edit } from "./edits.js";

export interface Finding {
  improvement: Omit<Improvement, "applied">;
  edits: Edit[];
}

const at = (node: Node) => ({ line: node.loc?.start.line ?? 0, column: (node.loc?.start.column ?? 0) + 1 });
const firstLine = (text: string, limit = 160) => {
  const line = text.split("\n")[0] ?? "";
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
};

/** Identifier uses (not property names or keys) of `name` under `scope`. */
function referencesOf(scope: Node, name: string): Array<{ node: Node; parent: Node | undefined; ancestors: readonly Node[] }> {
  const found: Array<{ node: Node; parent: Node | undefined; ancestors: readonly Node[] }> = [];
  walk(scope, (node, parent, ancestors) => {
    if (node.type !== "Identifier" || node.name !== name) return undefined;
    if (parent?.type === "MemberExpression" && parent.property === node && !parent.computed) return undefined;
    if (parent?.type === "OptionalMemberExpression" && parent.property === node && !parent.computed) return undefined;
    if (
      (parent?.type === "ObjectProperty" ||
        parent?.type === "ClassProperty" ||
        parent?.type === "ObjectMethod" ||
        parent?.type === "ClassMethod") &&
      parent.key === node &&
      !parent.computed &&
      !(parent.type === "ObjectProperty" && parent.shorthand)
    )
      return undefined;
    found.push({ node, parent, ancestors: [...ancestors] });
    return undefined;
  });
  return found;
}

/** `var` → `const` (never reassigned) or `let`, where every use sits in the declaring block after the declaration. */
export function detectVarDeclarations(parsed: ParsedCode): Finding[] {
  const findings: Finding[] = [];
  if (!parsed.ast) return findings;
  const program = parsed.ast.program;
  walk(program, (node, parent, ancestors) => {
    if (node.type !== "VariableDeclaration" || node.kind !== "var") return undefined;
    const declaration = node as VariableDeclaration;
    const scope = [...ancestors].reverse().find(isFunctionNode) ?? program;
    const block =
      parent && (parent.type === "ForStatement" || parent.type === "ForInStatement" || parent.type === "ForOfStatement") ? parent : parent;
    const names = declaration.declarations.map((declarator) => (declarator.id.type === "Identifier" ? declarator.id.name : undefined));
    const before = firstLine(textOf(parsed.source, declaration));
    let reason: string | undefined;
    let reassigned = parent?.type === "ForStatement" || parent?.type === "ForInStatement" || parent?.type === "ForOfStatement";
    if (names.some((name) => name === undefined)) reason = "destructuring declarations are left as they are";
    for (const name of names) {
      if (reason || name === undefined) break;
      for (const use of referencesOf(scope, name)) {
        if (
          use.node.start ===
          (declaration.declarations.find((item) => item.id.type === "Identifier" && item.id.name === name)?.id.start ?? -1)
        )
          continue;
        const inBlock = block && (use.node.start ?? 0) >= (block.start ?? 0) && (use.node.end ?? 0) <= (block.end ?? 0);
        if (!inBlock || (use.node.start ?? 0) < (declaration.start ?? 0)) {
          reason = `"${name}" is used ${inBlock ? "before its declaration" : "outside the block that declares it"} (var hoisting), so let/const would change behavior`;
          break;
        }
        if (use.parent?.type === "VariableDeclarator" && use.parent.id === use.node) {
          reason = `"${name}" is declared more than once`;
          break;
        }
        if ((use.parent?.type === "AssignmentExpression" && use.parent.left === use.node) || use.parent?.type === "UpdateExpression")
          reassigned = true;
        if ((use.parent?.type === "ForInStatement" || use.parent?.type === "ForOfStatement") && use.parent.left === use.node)
          reassigned = true;
      }
    }
    const keyword =
      reassigned || declaration.declarations.some((declarator) => declarator.init === null || declarator.init === undefined)
        ? "let"
        : "const";
    const after = before.replace(/^var\b/, keyword);
    findings.push({
      improvement: {
        type: "var-declarations",
        description: `Declare with ${keyword} instead of var (block scope${keyword === "const" ? ", never reassigned" : ""})`,
        ...at(declaration),
        before,
        after,
        impact: "low",
        ...(reason ? { reason } : {}),
      },
      edits: reason ? [] : [{ start: declaration.start ?? 0, end: (declaration.start ?? 0) + 3, text: keyword }],
    });
    return undefined;
  });
  return findings;
}

function isLiteral(node: Node): boolean {
  return (
    node.type === "StringLiteral" || node.type === "NumericLiteral" || node.type === "BooleanLiteral" || node.type === "TemplateLiteral"
  );
}

/** `==`/`!=` → `===`/`!==`; applied where the operand types cannot differ (typeof comparisons, two literals of one kind). */
export function detectLooseEquality(parsed: ParsedCode): Finding[] {
  const findings: Finding[] = [];
  if (!parsed.ast) return findings;
  walk(parsed.ast.program, (node) => {
    if (node.type !== "BinaryExpression" || (node.operator !== "==" && node.operator !== "!=")) return undefined;
    const expression = node as BinaryExpression;
    const strict = `${expression.operator}=`;
    const operatorAt = parsed.source.indexOf(expression.operator, expression.left.end ?? 0);
    const before = textOf(parsed.source, expression);
    const nullCheck = [expression.left, expression.right].some(
      (side) => side.type === "NullLiteral" || (side.type === "Identifier" && side.name === "undefined"),
    );
    const typeofCheck =
      [expression.left, expression.right].some((side) => side.type === "UnaryExpression" && side.operator === "typeof") &&
      [expression.left, expression.right].some((side) => side.type === "StringLiteral");
    const sameLiterals = isLiteral(expression.left) && isLiteral(expression.right) && expression.left.type === expression.right.type;
    const safe = typeofCheck || sameLiterals;
    const after = nullCheck
      ? `${textOf(parsed.source, expression.left)} ${strict} null || ${textOf(parsed.source, expression.left)} ${strict} undefined`
      : `${textOf(parsed.source, expression.left)} ${strict} ${textOf(parsed.source, expression.right)}`;
    const reason = nullCheck
      ? "`== null` deliberately matches null and undefined"
      : safe
        ? undefined
        : "the operands may have different types; == converts them, so check before switching";
    findings.push({
      improvement: {
        type: "strict-equality",
        description: `Use ${strict} to compare without type conversion`,
        ...at(expression),
        before: firstLine(before),
        after: firstLine(after),
        impact: nullCheck ? "low" : "medium",
        ...(reason ? { reason } : {}),
      },
      edits:
        safe && operatorAt >= 0 && operatorAt < (expression.right.start ?? 0)
          ? [{ start: operatorAt, end: operatorAt + expression.operator.length, text: strict }]
          : [],
    });
    return undefined;
  });
  return findings;
}

function chainOf(node: Node): Node[] {
  const operands: Node[] = [];
  let current: Node = node;
  while (current.type === "BinaryExpression" && current.operator === "+") {
    operands.unshift(current.right);
    current = current.left;
  }
  operands.unshift(current);
  return operands;
}

/** `"a" + b + "c"` → `` `a${b}c` `` where a string comes first or second (so no number is added before). */
export function detectStringConcatenation(parsed: ParsedCode): Finding[] {
  const findings: Finding[] = [];
  if (!parsed.ast) return findings;
  walk(parsed.ast.program, (node, parent) => {
    if (node.type !== "BinaryExpression" || node.operator !== "+") return undefined;
    if (parent?.type === "BinaryExpression" && parent.operator === "+" && parent.left === node) return undefined;
    const operands = chainOf(node);
    const strings = operands.filter((operand) => operand.type === "StringLiteral");
    if (strings.length === 0 || strings.length === operands.length || operands.length < 2) return undefined;
    if (!(operands[0]?.type === "StringLiteral" || operands[1]?.type === "StringLiteral")) return undefined;
    let template = "`";
    for (const operand of operands) {
      if (operand.type === "StringLiteral") {
        const raw = textOf(parsed.source, operand).slice(1, -1);
        template += raw.replace(/`/g, "\\`").replace(/\$\{/g, "\\${");
      } else template += `\${${textOf(parsed.source, operand)}}`;
    }
    template += "`";
    findings.push({
      improvement: {
        type: "string-concatenation",
        description: "Build the string with a template literal",
        ...at(node),
        before: firstLine(textOf(parsed.source, node)),
        after: firstLine(template),
        impact: "low",
      },
      edits: template.includes("\n") ? [] : [{ start: node.start ?? 0, end: node.end ?? 0, text: template }],
    });
    return false;
  });
  return findings;
}
