import type { Node } from "@babel/types";

/** A branch condition on a parameter that a test can satisfy and violate. */
export interface ParamCondition {
  param: string;
  kind: "compare" | "falsy" | "typeof" | "length" | "null" | "array" | "nan";
  operator?: string;
  /** The literal compared against (number or string), or the typeof name. */
  value?: number | string;
  /** The branch taken when the condition holds throws. */
  throws: boolean;
  line: number;
}

function literalValue(node: Node): number | string | undefined {
  if (node.type === "NumericLiteral") return node.value;
  if (node.type === "StringLiteral") return node.value;
  if (node.type === "UnaryExpression" && node.operator === "-" && node.argument.type === "NumericLiteral") return -node.argument.value;
  return undefined;
}

const FLIP: Record<string, string> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "===": "===", "!=": "!=", "!==": "!==" };

function branchThrows(consequent: Node | null | undefined): boolean {
  if (!consequent) return false;
  if (consequent.type === "ThrowStatement") return true;
  return consequent.type === "BlockStatement" && consequent.body.some((statement) => statement.type === "ThrowStatement");
}

/** Conditions of one test expression (split on && and ||) that name a parameter. */
export function conditionsOf(test: Node, params: Set<string>, consequent: Node | null | undefined): ParamCondition[] {
  const throws = branchThrows(consequent);
  const line = test.loc?.start.line ?? 0;
  const found: ParamCondition[] = [];
  const pending: Node[] = [test];
  while (pending.length > 0 && found.length < 20) {
    const node = pending.pop() as Node;
    if (node.type === "LogicalExpression") {
      pending.push(node.left, node.right);
      continue;
    }
    if (node.type === "UnaryExpression" && node.operator === "!" && node.argument.type === "Identifier" && params.has(node.argument.name)) {
      found.push({ param: node.argument.name, kind: "falsy", throws, line });
      continue;
    }
    if (node.type === "CallExpression") {
      const callee = node.callee;
      const argument = node.arguments[0];
      if (
        argument?.type === "Identifier" &&
        params.has(argument.name) &&
        callee.type === "MemberExpression" &&
        callee.property.type === "Identifier"
      ) {
        if (callee.property.name === "isArray") found.push({ param: argument.name, kind: "array", throws, line });
        if (callee.property.name === "isNaN" || callee.property.name === "isFinite" || callee.property.name === "isInteger")
          found.push({ param: argument.name, kind: "nan", throws, line });
      }
      if (argument?.type === "Identifier" && params.has(argument.name) && callee.type === "Identifier" && callee.name === "isNaN")
        found.push({ param: argument.name, kind: "nan", throws, line });
      continue;
    }
    if (node.type !== "BinaryExpression" || !(node.operator in FLIP)) continue;
    for (const [subject, other, operator] of [
      [node.left, node.right, node.operator],
      [node.right, node.left, FLIP[node.operator] as string],
    ] as const) {
      if (subject.type === "Identifier" && params.has(subject.name)) {
        if (other.type === "NullLiteral" || (other.type === "Identifier" && other.name === "undefined"))
          found.push({ param: subject.name, kind: "null", throws, line });
        const value = literalValue(other);
        if (value !== undefined) found.push({ param: subject.name, kind: "compare", operator, value, throws, line });
      }
      if (
        subject.type === "UnaryExpression" &&
        subject.operator === "typeof" &&
        subject.argument.type === "Identifier" &&
        params.has(subject.argument.name) &&
        other.type === "StringLiteral"
      ) {
        found.push({ param: subject.argument.name, kind: "typeof", operator, value: other.value, throws, line });
      }
      if (
        subject.type === "MemberExpression" &&
        subject.object.type === "Identifier" &&
        params.has(subject.object.name) &&
        subject.property.type === "Identifier" &&
        subject.property.name === "length"
      ) {
        const value = literalValue(other);
        if (typeof value === "number") found.push({ param: subject.object.name, kind: "length", operator, value, throws, line });
      }
    }
  }
  return found;
}
