import type { Node } from "@babel/types";

const SKIPPED_KEYS = new Set([
  "loc",
  "start",
  "end",
  "range",
  "extra",
  "leadingComments",
  "trailingComments",
  "innerComments",
  "comments",
  "tokens",
  "errors",
]);

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** The child nodes of a node, in source order. */
export function childrenOf(node: Node): Node[] {
  const children: Node[] = [];
  for (const key of Object.keys(node)) {
    if (SKIPPED_KEYS.has(key)) continue;
    const value = (node as unknown as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) children.push(item);
    } else if (isNode(value)) children.push(value);
  }
  return children;
}

/**
 * Visits every node under `root` depth-first in source order, without recursion (so hostile,
 * deeply nested input cannot overflow the stack). Return `false` from `visit` to skip a subtree.
 */
export function walk(root: Node, visit: (node: Node, parent: Node | undefined, ancestors: readonly Node[]) => boolean | undefined): void {
  const stack: Array<{ node: Node; depth: number }> = [{ node: root, depth: 0 }];
  const ancestors: Node[] = [];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: Node; depth: number };
    ancestors.length = depth;
    const parent = ancestors[depth - 1];
    if (visit(node, parent, ancestors) === false) continue;
    ancestors.push(node);
    const children = childrenOf(node);
    for (let index = children.length - 1; index >= 0; index--) stack.push({ node: children[index] as Node, depth: depth + 1 });
  }
}

/** True for nodes that start a new function scope. */
export function isFunctionNode(node: Node): boolean {
  return (
    node.type === "FunctionDeclaration" ||
    node.type === "FunctionExpression" ||
    node.type === "ArrowFunctionExpression" ||
    node.type === "ClassMethod" ||
    node.type === "ClassPrivateMethod" ||
    node.type === "ObjectMethod"
  );
}

/** The source text of a node. */
export function textOf(source: string, node: { start?: number | null; end?: number | null }): string {
  return source.slice(node.start ?? 0, node.end ?? 0);
}
