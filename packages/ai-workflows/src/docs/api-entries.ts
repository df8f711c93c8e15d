import type { Node } from "@babel/types";
import { textOf } from "../code/ast-walk.js";
import { collectFunctions } from "../code/collect-functions.js";
import type { FunctionFact } from "../code/function-facts.js";
import { type JsDoc, parseJsDoc } from "../code/jsdoc.js";
import type { ParsedCode } from "../code/parse-code.js";
import type { ApiEntry } from "../schemas/generate-documentation-schema.js";
import { typicalValue } from "../tests/test-values.js";

/** Where a generated JSDoc goes: the statement (or export) that declares the entry. */
export interface EntryAnchor {
  entry: ApiEntry;
  insertAt: number;
  indentation: string;
}

const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase()
    .trim();
const sentence = (text: string) => (text === "" ? text : `${text[0]?.toUpperCase()}${text.slice(1)}.`);

function paramSignature(fact: FunctionFact): string {
  return fact.params
    .map(
      (param) =>
        `${param.rest ? "..." : ""}${param.name}${param.optional && !param.defaultValue && !param.rest ? "?" : ""}${param.type ? `: ${param.type}` : ""}${param.defaultValue ? ` = ${param.defaultValue}` : ""}`,
    )
    .join(", ");
}

function signatureOf(fact: FunctionFact): string {
  const params = paramSignature(fact);
  const returns = fact.returnType ? `: ${fact.returnType}` : "";
  if (fact.kind === "class") return `new ${fact.name}(${params})`;
  const prefix = fact.async ? "async " : "";
  if (fact.kind === "method")
    return `${prefix}${
      fact.isStatic
        ? fact.className
        : words(fact.className ?? "")
            .split(" ")
            .join("") || "instance"
    }.${fact.name}(${params})${returns}`;
  return `${prefix}${fact.name}(${params})${returns}`;
}

/** A generated call of a function for examples: typical argument values, awaited when async. */
export function exampleCall(fact: FunctionFact): string {
  const args = fact.params
    .filter((param) => !param.rest && param.defaultValue === null)
    .map((param, index) => typicalValue(param, index).code)
    .join(", ");
  if (fact.kind === "class") return `const ${words(fact.name).split(" ").join("")} = new ${fact.name}(${args});`;
  const call =
    fact.kind === "method"
      ? fact.isStatic
        ? `${fact.className}.${fact.name}(${args})`
        : `new ${fact.className}().${fact.name}(${args})`
      : `${fact.name}(${args})`;
  return fact.returnsValue ? `const result = ${fact.async ? "await " : ""}${call};` : `${fact.async ? "await " : ""}${call};`;
}

function entryOf(fact: FunctionFact): ApiEntry {
  const doc = fact.jsdoc;
  const kind = fact.kind === "arrow" ? "function" : fact.kind;
  const description = doc?.description || sentence(fact.kind === "class" ? `the ${words(fact.name)} class` : words(fact.name));
  return {
    name: fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name,
    kind,
    signature: signatureOf(fact),
    description,
    params: fact.params.map((param) => ({
      name: param.name,
      type: doc?.params.get(param.name)?.type ?? param.type,
      optional: param.optional,
      defaultValue: param.defaultValue,
      description: doc?.params.get(param.name)?.description || sentence(`the ${words(param.name)}`),
    })),
    returns:
      fact.kind === "class" || (!fact.returnsValue && !fact.returnType && !doc?.returns)
        ? null
        : {
            type: doc?.returns?.type ?? fact.returnType,
            description: doc?.returns?.description || (fact.async ? "A promise of the result." : "The result."),
          },
    throws: doc?.throws.length ? doc.throws : fact.throws ? ["Throws on invalid input (see the code's throw statements)."] : [],
    examples: doc?.examples ?? [],
    deprecated: doc?.deprecated ?? null,
    exported: fact.exported,
    line: fact.line,
    documented: doc !== null,
  };
}

function declarationDoc(statement: Node, wrapper: Node | undefined): JsDoc | null {
  const comment = [...(wrapper?.leadingComments ?? []), ...(statement.leadingComments ?? [])]
    .reverse()
    .find((item) => item.type === "CommentBlock" && item.value.startsWith("*"));
  return comment ? parseJsDoc(comment.value) : null;
}

/** Exported interfaces, type aliases and non-function constants. */
function otherEntries(parsed: ParsedCode): Array<{ entry: ApiEntry; node: Node }> {
  const found: Array<{ entry: ApiEntry; node: Node }> = [];
  for (const statement of parsed.ast?.program.body ?? []) {
    const exported = statement.type === "ExportNamedDeclaration";
    const declaration = exported ? statement.declaration : statement;
    if (!declaration) continue;
    const doc = declarationDoc(declaration, exported ? statement : undefined);
    const base = {
      params: [],
      returns: null,
      throws: [],
      examples: doc?.examples ?? [],
      deprecated: doc?.deprecated ?? null,
      exported,
      line: statement.loc?.start.line ?? 0,
      documented: doc !== null,
    };
    if (declaration.type === "TSInterfaceDeclaration" || declaration.type === "TSTypeAliasDeclaration") {
      const text = textOf(parsed.source, declaration);
      found.push({
        entry: {
          ...base,
          name: declaration.id.name,
          kind: declaration.type === "TSInterfaceDeclaration" ? "interface" : "type",
          signature: text.length > 400 ? `${text.slice(0, 400)}…` : text,
          description:
            doc?.description ||
            sentence(`the ${words(declaration.id.name)} ${declaration.type === "TSInterfaceDeclaration" ? "shape" : "type"}`),
        },
        node: statement,
      });
    }
    if (declaration.type === "VariableDeclaration" && exported) {
      for (const declarator of declaration.declarations) {
        if (
          declarator.id.type !== "Identifier" ||
          !declarator.init ||
          ["ArrowFunctionExpression", "FunctionExpression"].includes(declarator.init.type)
        )
          continue;
        const value = textOf(parsed.source, declarator.init);
        found.push({
          entry: {
            ...base,
            name: declarator.id.name,
            kind: "constant",
            signature: `${declaration.kind} ${declarator.id.name} = ${value.length > 120 ? `${value.slice(0, 120)}…` : value}`,
            description: doc?.description || sentence(words(declarator.id.name)),
          },
          node: statement,
        });
      }
    }
  }
  return found;
}

function anchorOf(parsed: ParsedCode, node: Node): { insertAt: number; indentation: string } {
  const start = node.start ?? 0;
  const lineStart = parsed.source.lastIndexOf("\n", start - 1) + 1;
  return { insertAt: lineStart, indentation: /^[ \t]*/.exec(parsed.source.slice(lineStart))?.[0] ?? "" };
}

/** The API of a module: its functions, classes, methods, interfaces, types and constants, in source order. */
export function apiEntries(parsed: ParsedCode): { entries: ApiEntry[]; anchors: EntryAnchor[]; facts: FunctionFact[] } {
  const facts = collectFunctions(parsed);
  const statements = parsed.ast?.program.body ?? [];
  const anchors: EntryAnchor[] = facts.map((fact) => {
    const entry = entryOf(fact);
    // The JSDoc of an exported function goes above its `export`.
    const statement =
      fact.kind === "method"
        ? fact.node
        : (statements.find((item) => (item.start ?? 0) <= (fact.node.start ?? 0) && (fact.node.end ?? 0) <= (item.end ?? 0)) ?? fact.node);
    return { entry, ...anchorOf(parsed, statement) };
  });
  for (const other of otherEntries(parsed)) anchors.push({ entry: other.entry, ...anchorOf(parsed, other.node) });
  anchors.sort((a, b) => a.entry.line - b.entry.line);
  return { entries: anchors.map((anchor) => anchor.entry), anchors, facts };
}
