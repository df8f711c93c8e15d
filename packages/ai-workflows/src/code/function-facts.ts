import type { Comment, Node } from "@babel/types";
import { isFunctionNode, textOf, walk } from "./ast-walk.js";
import { type ParamCondition, conditionsOf } from "./conditions.js";
import { type JsDoc, parseJsDoc } from "./jsdoc.js";
import type { ParsedCode } from "./parse-code.js";

export interface ParameterFact {
  name: string;
  type: string | null;
  optional: boolean;
  defaultValue: string | null;
  rest: boolean;
}

/** What the workflows know about one function, method or class of the code. */
export interface FunctionFact {
  name: string;
  kind: "function" | "method" | "arrow" | "class";
  className: string | null;
  params: ParameterFact[];
  returnType: string | null;
  async: boolean;
  generator: boolean;
  exported: boolean;
  /** `default` for a default export, else the exported name. */
  exportName: string | null;
  line: number;
  endLine: number;
  branches: number;
  throws: boolean;
  documentation: string | null;
  jsdoc: JsDoc | null;
  conditions: ParamCondition[];
  /** Other top-level functions of the module it calls. */
  calls: string[];
  /** Has a `return <value>` (or is an arrow with an expression body). */
  returnsValue: boolean;
  isStatic: boolean;
  node: Node;
}

function typeText(source: string, annotation: Node | null | undefined): string | null {
  if (!annotation || annotation.type === "Noop") return null;
  const inner = "typeAnnotation" in annotation && annotation.typeAnnotation ? (annotation.typeAnnotation as Node) : annotation;
  return textOf(source, inner).trim() || null;
}

function inferType(value: Node): string | null {
  if (value.type === "NumericLiteral") return "number";
  if (value.type === "StringLiteral" || value.type === "TemplateLiteral") return "string";
  if (value.type === "BooleanLiteral") return "boolean";
  if (value.type === "ArrayExpression") return "unknown[]";
  if (value.type === "ObjectExpression") return "object";
  return null;
}

function parameterOf(source: string, param: Node): ParameterFact {
  if (param.type === "TSParameterProperty") return parameterOf(source, param.parameter);
  if (param.type === "AssignmentPattern") {
    const inner = parameterOf(source, param.left);
    return { ...inner, optional: true, defaultValue: textOf(source, param.right), type: inner.type ?? inferType(param.right) };
  }
  if (param.type === "RestElement")
    return { ...parameterOf(source, param.argument), rest: true, optional: true, type: typeText(source, param.typeAnnotation as Node) };
  const type = typeText(source, (param as { typeAnnotation?: Node }).typeAnnotation);
  const optional = Boolean((param as { optional?: boolean }).optional);
  if (param.type === "Identifier") return { name: param.name, type, optional, defaultValue: null, rest: false };
  const name = param.type === "ObjectPattern" ? "options" : param.type === "ArrayPattern" ? "items" : "value";
  return {
    name,
    type: type ?? (param.type === "ObjectPattern" ? "object" : param.type === "ArrayPattern" ? "unknown[]" : null),
    optional,
    defaultValue: null,
    rest: false,
  };
}

function jsdocOf(comments: readonly Comment[] | null | undefined): { text: string; doc: JsDoc } | null {
  const block = [...(comments ?? [])].reverse().find((comment) => comment.type === "CommentBlock" && comment.value.startsWith("*"));
  if (!block) return null;
  const doc = parseJsDoc(block.value);
  return {
    text: block.value
      .replace(/^\*/, "")
      .replace(/^\s*\* ?/gm, "")
      .trim(),
    doc,
  };
}

const BRANCH_TYPES = new Set([
  "IfStatement",
  "ConditionalExpression",
  "SwitchCase",
  "LogicalExpression",
  "CatchClause",
  "ForStatement",
  "WhileStatement",
  "DoWhileStatement",
  "ForOfStatement",
  "ForInStatement",
]);

function bodyFacts(
  fn: Node,
  paramNames: Set<string>,
): { branches: number; throws: boolean; conditions: ParamCondition[]; called: Set<string>; returnsValue: boolean } {
  let branches = 0;
  let throws = false;
  let returnsValue = false;
  const conditions: ParamCondition[] = [];
  const called = new Set<string>();
  const body = (fn as { body?: Node }).body;
  if (!body) return { branches, throws, conditions, called, returnsValue };
  if (body.type !== "BlockStatement" && body.type !== "ClassBody") returnsValue = true;
  walk(body, (node) => {
    if (node !== body && isFunctionNode(node)) return false;
    if (BRANCH_TYPES.has(node.type) && !(node.type === "SwitchCase" && node.test === null)) branches++;
    if (node.type === "ThrowStatement") throws = true;
    if (node.type === "ReturnStatement" && node.argument) returnsValue = true;
    if (node.type === "IfStatement") conditions.push(...conditionsOf(node.test, paramNames, node.consequent));
    if (node.type === "ConditionalExpression") conditions.push(...conditionsOf(node.test, paramNames, undefined));
    if (node.type === "CallExpression" && node.callee.type === "Identifier") called.add(node.callee.name);
    return undefined;
  });
  return { branches, throws, conditions: conditions.slice(0, 30), called, returnsValue };
}

/** The facts of one function node. */
function factOf(
  parsed: ParsedCode,
  fn: Node,
  name: string,
  kind: FunctionFact["kind"],
  comments: readonly Comment[] | null | undefined,
  extra: Partial<FunctionFact> = {},
): FunctionFact {
  const source = parsed.source;
  const params = ((fn as { params?: Node[] }).params ?? []).map((param) => parameterOf(source, param));
  const facts = bodyFacts(fn, new Set(params.map((param) => param.name)));
  const documentation = jsdocOf(comments);
  return {
    name,
    kind,
    className: null,
    params,
    returnType: typeText(source, (fn as { returnType?: Node }).returnType),
    async: Boolean((fn as { async?: boolean }).async),
    generator: Boolean((fn as { generator?: boolean }).generator),
    exported: false,
    exportName: null,
    line: fn.loc?.start.line ?? 0,
    endLine: fn.loc?.end.line ?? 0,
    branches: facts.branches,
    throws: facts.throws,
    documentation: documentation?.text ?? null,
    jsdoc: documentation?.doc ?? null,
    conditions: facts.conditions,
    calls: [...facts.called],
    returnsValue: facts.returnsValue,
    isStatic: false,
    node: fn,
    ...extra,
  };
}

function commentsOf(...nodes: Array<Node | undefined>): Comment[] {
  return nodes.flatMap((node) => node?.leadingComments ?? []);
}

export { factOf, commentsOf };
