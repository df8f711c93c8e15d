import type { Node, Statement } from "@babel/types";
import { type FunctionFact, commentsOf, factOf } from "./function-facts.js";
import type { ParsedCode } from "./parse-code.js";

function declarationFacts(parsed: ParsedCode, statement: Node, wrapper: Node | undefined): FunctionFact[] {
  const comments = commentsOf(wrapper, statement);
  if (statement.type === "FunctionDeclaration" || statement.type === "TSDeclareFunction") {
    if (statement.type === "TSDeclareFunction") return [];
    return [factOf(parsed, statement, statement.id?.name ?? "default", "function", comments)];
  }
  if (statement.type === "VariableDeclaration") {
    return statement.declarations.flatMap((declarator) => {
      const init = declarator.init;
      if (declarator.id.type !== "Identifier" || !init) return [];
      if (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression") {
        return [
          factOf(
            parsed,
            init,
            declarator.id.name,
            init.type === "ArrowFunctionExpression" ? "arrow" : "function",
            statement.declarations.length === 1 ? comments : declarator.leadingComments,
          ),
        ];
      }
      return [];
    });
  }
  if (statement.type === "ClassDeclaration" || statement.type === "ClassExpression") {
    const className = statement.id?.name ?? "default";
    const constructorMethod = statement.body.body.find((member) => member.type === "ClassMethod" && member.kind === "constructor");
    const classFact = factOf(parsed, constructorMethod ?? statement, className, "class", comments, {
      line: statement.loc?.start.line ?? 0,
      endLine: statement.loc?.end.line ?? 0,
    });
    const methods = statement.body.body.flatMap((member) => {
      if (member.type !== "ClassMethod" || member.kind !== "method" || member.key.type !== "Identifier") return [];
      if (member.accessibility === "private" || member.accessibility === "protected") return [];
      return [factOf(parsed, member, member.key.name, "method", member.leadingComments, { className, isStatic: member.static })];
    });
    return [classFact, ...methods];
  }
  return [];
}

/** `module.exports = {a, b}`, `module.exports.a = …`, `exports.a = …`: the CommonJS export names. */
function commonJsExports(statement: Statement, names: Map<string, string>, parsed: ParsedCode, facts: FunctionFact[]): void {
  if (statement.type !== "ExpressionStatement" || statement.expression.type !== "AssignmentExpression") return;
  const { left, right } = statement.expression;
  if (left.type !== "MemberExpression") return;
  const isModuleExports = (node: Node) =>
    node.type === "MemberExpression" &&
    node.object.type === "Identifier" &&
    node.object.name === "module" &&
    node.property.type === "Identifier" &&
    node.property.name === "exports";
  if (isModuleExports(left) && right.type === "ObjectExpression") {
    for (const property of right.properties) {
      if (property.type === "ObjectProperty" && property.key.type === "Identifier" && property.value.type === "Identifier")
        names.set(property.value.name, property.key.name);
    }
    return;
  }
  const target = left.object;
  if ((isModuleExports(target) || (target.type === "Identifier" && target.name === "exports")) && left.property.type === "Identifier") {
    if (right.type === "Identifier") names.set(right.name, left.property.name);
    else if (right.type === "FunctionExpression" || right.type === "ArrowFunctionExpression") {
      facts.push({
        ...factOf(
          parsed,
          right,
          left.property.name,
          right.type === "ArrowFunctionExpression" ? "arrow" : "function",
          statement.leadingComments,
        ),
        exported: true,
        exportName: left.property.name,
      });
    }
  }
}

/**
 * The module's testable functions: top-level function declarations and function-valued
 * constants, classes with their public methods, ES and CommonJS exports marked as such.
 *
 * @example
 * collectFunctions(parseCode("export function add(a, b) { return a + b; }")).map((fact) => fact.name); // ["add"]
 */
export function collectFunctions(parsed: ParsedCode): FunctionFact[] {
  const program = parsed.ast?.program;
  if (!program) return [];
  const facts: FunctionFact[] = [];
  const exportedNames = new Map<string, string>();
  for (const statement of program.body) {
    if (statement.type === "ExportNamedDeclaration") {
      if (statement.declaration) {
        for (const fact of declarationFacts(parsed, statement.declaration, statement))
          facts.push(fact.kind === "method" ? fact : { ...fact, exported: true, exportName: fact.name });
      }
      for (const specifier of statement.specifiers) {
        if (specifier.type === "ExportSpecifier" && !statement.source) {
          const exported = specifier.exported.type === "Identifier" ? specifier.exported.name : specifier.exported.value;
          exportedNames.set(specifier.local.name, exported);
        }
      }
    } else if (statement.type === "ExportDefaultDeclaration") {
      const declaration = statement.declaration;
      if (declaration.type === "Identifier") exportedNames.set(declaration.name, "default");
      else if (declaration.type === "ArrowFunctionExpression" || declaration.type === "FunctionExpression") {
        facts.push({
          ...factOf(parsed, declaration, "defaultExport", "arrow", commentsOf(statement)),
          exported: true,
          exportName: "default",
        });
      } else {
        for (const fact of declarationFacts(parsed, declaration, statement)) {
          const name = fact.name === "default" ? "defaultExport" : fact.name;
          facts.push(
            fact.kind === "method"
              ? { ...fact, className: fact.className === "default" ? "defaultExport" : fact.className }
              : { ...fact, name, exported: true, exportName: "default" },
          );
        }
      }
    } else {
      facts.push(...declarationFacts(parsed, statement, undefined));
      commonJsExports(statement, exportedNames, parsed, facts);
    }
  }
  for (const fact of facts) {
    const exportName = exportedNames.get(fact.name);
    if (exportName !== undefined && fact.kind !== "method") Object.assign(fact, { exported: true, exportName });
  }
  // Methods are exported with their class.
  for (const fact of facts) {
    if (fact.kind === "method")
      fact.exported = facts.some((owner) => owner.kind === "class" && owner.name === fact.className && owner.exported);
  }
  const names = new Set(facts.filter((fact) => fact.kind !== "method").map((fact) => fact.name));
  for (const fact of facts) fact.calls = fact.calls.filter((name) => names.has(name) && name !== fact.name);
  return facts;
}
