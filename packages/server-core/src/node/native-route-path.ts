/** Route path syntaxes of the Node frameworks' native routers. */
export type NativeRouterSyntax =
  /** Express 5 and @koa/router 15 (path-to-regexp 8): `:name`, `*name`, reserved characters escaped. */
  | "path-to-regexp"
  /** Fastify (find-my-way): `:name`, `*`, a literal `:` written `::`. */
  | "find-my-way";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const PATH_TO_REGEXP_RESERVED = /[{}()[\]+?!:*\\]/g;

/**
 * Spells a Conduit route path (`/users/:id`, a final `*` segment) in a native router's
 * syntax, so that router matches exactly the paths Conduit's own table would. Characters
 * a router treats as syntax are escaped when Conduit means them literally.
 *
 * @example
 * nativeRoutePath("/files/*", "path-to-regexp"); // "/files/*wildcard"
 * nativeRoutePath("/models/gemini:generate", "find-my-way"); // "/models/gemini::generate"
 */
export function nativeRoutePath(path: string, syntax: NativeRouterSyntax): string {
  return path
    .split("/")
    .map((segment, index) => {
      if (segment.startsWith(":")) {
        const name = segment.slice(1);
        if (syntax === "find-my-way") return `:${name.replace(/[:*]/g, "_")}`;
        return IDENTIFIER.test(name) ? `:${name}` : `:"${name.replace(/["\\]/g, "_")}"`;
      }
      if (segment === "*") return syntax === "find-my-way" ? "*" : `*wildcard${index}`;
      if (syntax === "find-my-way") return segment.replace(/:/g, "::");
      return segment.replace(PATH_TO_REGEXP_RESERVED, (character) => `\\${character}`);
    })
    .join("/");
}
