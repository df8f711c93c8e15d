import type { IfStatement, Node, Statement } from "@babel/types";
import { isFunctionNode, textOf, walk } from "../code/ast-walk.js";
import type { ParsedCode } from "../code/parse-code.js";
import { literalKey } from "./code-metrics.js";
import type { Finding } from "./detect-syntax.js";
import type { Edit } from "./edits.js";

const at = (node: Node) => ({ line: node.loc?.start.line ?? 0, column: (node.loc?.start.column ?? 0) + 1 });

function lineBounds(source: string, position: number): { start: number; end: number } {
  const start = source.lastIndexOf("\n", position - 1) + 1;
  const newline = source.indexOf("\n", position);
  return { start, end: newline < 0 ? source.length : newline + 1 };
}

/** The chain of `if (a) { … if (b) { … } }` without else, each the last statement of its block. */
function guardChain(statement: Statement): IfStatement[] {
  const chain: IfStatement[] = [];
  let current: Statement | undefined = statement;
  while (current?.type === "IfStatement" && !current.alternate && current.consequent.type === "BlockStatement") {
    chain.push(current);
    current = current.consequent.body.at(-1);
  }
  return chain;
}

/**
 * Nested ifs at the end of a function → guard clauses (`if (!(a)) return;`), when the nesting
 * is 2 deep or more. Safe because the function returned undefined on those paths already.
 */
export function detectNestedConditionals(parsed: ParsedCode): Finding[] {
  const findings: Finding[] = [];
  if (!parsed.ast) return findings;
  const source = parsed.source;
  walk(parsed.ast.program, (node) => {
    if (!isFunctionNode(node)) return undefined;
    const body = (node as { body?: Node }).body;
    if (body?.type !== "BlockStatement") return undefined;
    const last = body.body.at(-1);
    const chain = last ? guardChain(last) : [];
    if (chain.length < 2 || (node as { generator?: boolean }).generator) return undefined;
    const edits: Edit[] = [];
    const dedent = new Set<number>();
    for (const statement of chain) {
      const block = statement.consequent as Node & { end: number; start: number };
      edits.push({ start: statement.start ?? 0, end: statement.test.start ?? 0, text: "if (!(" });
      edits.push({ start: statement.test.end ?? 0, end: block.start + 1, text: ")) return;" });
      const closing = lineBounds(source, block.end - 1);
      const onlyBrace = source.slice(closing.start, closing.end).trim() === "}";
      edits.push(onlyBrace ? { start: closing.start, end: closing.end, text: "" } : { start: block.end - 1, end: block.end, text: "" });
      // Lines inside the block lose one indentation level.
      for (
        let position = source.indexOf("\n", block.start) + 1;
        position > 0 && position < block.end - 1;
        position = source.indexOf("\n", position) + 1
      )
        dedent.add(position);
    }
    const indentOf = (position: number) => /^[ \t]*/.exec(source.slice(lineBounds(source, position).start))?.[0] ?? "";
    const outerIndent = indentOf(chain[0]?.start ?? 0);
    const firstInner = source.indexOf("\n", chain[0]?.consequent.start ?? 0) + 1;
    const unit = indentOf(firstInner).slice(outerIndent.length) || "  ";
    for (const position of dedent) {
      const count = chain.filter(
        (statement) => position > (statement.consequent.start ?? 0) && position < (statement.consequent.end ?? 0),
      ).length;
      const remove = Math.min(indentOf(position).length, unit.length * count);
      if (remove > 0 && !edits.some((edit) => edit.start <= position && position < edit.end))
        edits.push({ start: position, end: position + remove, text: "" });
    }
    const before = chain.map((statement, depth) => `${"  ".repeat(depth)}if (${textOf(source, statement.test)}) {`).join("\n");
    const after = chain.map((statement) => `if (!(${textOf(source, statement.test)})) return;`).join("\n");
    findings.push({
      improvement: {
        type: "nested-conditionals",
        description: `Replace ${chain.length} nested ifs with guard clauses (flatter, easier to follow)`,
        ...at(chain[0] as Node),
        before,
        after,
        impact: chain.length >= 3 ? "high" : "medium",
      },
      edits,
    });
    return undefined;
  });
  return findings;
}

/** Functions longer than `limit` lines: a suggestion to split (never applied automatically). */
export function detectLongFunctions(parsed: ParsedCode, limit: number): Finding[] {
  const findings: Finding[] = [];
  if (!parsed.ast) return findings;
  walk(parsed.ast.program, (node) => {
    if (!isFunctionNode(node)) return undefined;
    const length = (node.loc?.end.line ?? 0) - (node.loc?.start.line ?? 0) + 1;
    if (length <= limit) return undefined;
    const body = (node as { body?: { body?: Statement[] } }).body?.body ?? [];
    const blocks = body.filter((statement) =>
      ["IfStatement", "ForStatement", "ForOfStatement", "ForInStatement", "WhileStatement", "SwitchStatement", "TryStatement"].includes(
        statement.type,
      ),
    );
    const largest = blocks.sort(
      (a, b) => (b.loc?.end.line ?? 0) - (b.loc?.start.line ?? 0) - ((a.loc?.end.line ?? 0) - (a.loc?.start.line ?? 0)),
    )[0];
    const header = textOf(parsed.source, node).split("\n")[0] ?? "";
    findings.push({
      improvement: {
        type: "long-functions",
        description: `This function is ${length} lines long (limit ${limit}); split it into named helpers`,
        ...at(node),
        before: `${header} … (${length} lines)`,
        after: largest
          ? `Extract lines ${largest.loc?.start.line}-${largest.loc?.end.line} (${largest.type.replace("Statement", "").toLowerCase()} block) into a helper function and call it`
          : "Split the body into helper functions, one per step",
        impact: length > limit * 2 ? "high" : "medium",
        reason: "splitting needs names only the author can choose",
      },
      edits: [],
    });
    return undefined;
  });
  return findings;
}

function constantName(key: string, taken: Set<string>): string {
  const value = key.slice(2);
  const words = key.startsWith("s:")
    ? (value
        .toUpperCase()
        .match(/[A-Z0-9]+/g)
        ?.slice(0, 4) ?? [])
    : ["VALUE", value.replace(/[^0-9]/g, "_")];
  let base = words.join("_") || "TEXT";
  if (/^[0-9]/.test(base)) base = `TEXT_${base}`;
  let name = base;
  for (let suffix = 2; taken.has(name); suffix++) name = `${base}_${suffix}`;
  taken.add(name);
  return name;
}

/** Literals repeated 3+ times → one named constant at the top of the module. */
export function detectDuplicatedLiterals(parsed: ParsedCode): Finding[] {
  const findings: Finding[] = [];
  if (!parsed.ast) return findings;
  const program = parsed.ast.program;
  const occurrences = new Map<string, Node[]>();
  const identifiers = new Set<string>();
  walk(program, (node, parent) => {
    if (node.type === "Identifier") identifiers.add(node.name);
    const key = literalKey(node, parent);
    if (key && !(node.type === "StringLiteral" && parent?.type === "TemplateLiteral"))
      occurrences.set(key, [...(occurrences.get(key) ?? []), node]);
    return undefined;
  });
  const lastImport = [...program.body].reverse().find((statement) => statement.type === "ImportDeclaration");
  const directives = program.directives.at(-1);
  const anchor = lastImport ?? directives;
  const insertAt = anchor ? lineBounds(parsed.source, anchor.end ?? 0).end : 0;
  for (const [key, nodes] of occurrences) {
    if (nodes.length < 3) continue;
    const name = constantName(key, identifiers);
    const raw = textOf(parsed.source, nodes[0] as Node);
    const first = nodes[0] as Node;
    findings.push({
      improvement: {
        type: "duplicated-literals",
        description: `${raw} appears ${nodes.length} times; name it once`,
        ...at(first),
        before: raw,
        after: `const ${name} = ${raw};`,
        impact: nodes.length >= 5 ? "medium" : "low",
      },
      edits: [
        {
          start: insertAt,
          end: insertAt,
          text: `${insertAt > 0 && parsed.source[insertAt - 1] !== "\n" ? "\n" : ""}const ${name} = ${raw};\n`,
        },
        ...nodes.map((node) => ({ start: node.start ?? 0, end: node.end ?? 0, text: name })),
      ],
    });
  }
  return findings;
}
