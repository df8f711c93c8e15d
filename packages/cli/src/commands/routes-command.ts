import type { MiddlewareDefinition, RegisteredRoute } from "@conduit-ai/server-core";
import { MiddlewareStack, pathMatchesFilter } from "@conduit-ai/server-core/internal";
import type { ConduitConfigFile } from "../config-file.js";
import { terminalStyle } from "../terminal-style.js";
import { inspectServer, takeBooleanFlags } from "./inspect-server.js";

export const ROUTES_USAGE = `Usage: conduit routes [--json] [--config file.json] [--framework hono|express|fastify|koa]
Lists every route of the configured server (method, path, group, auth) without starting it.
  --json   one JSON array instead of the table
The auth column names the authentication middleware that run for the route ("public" when auth is
configured but skips the route, "none" without auth), then the roles or permissions its authorization rules ask.`;

export interface RouteRow {
  method: string;
  path: string;
  group: string;
  auth: string;
}

/** The config file's `authorization.rules` entries (checked by the assembly already). */
interface AuthorizationRule {
  path: string;
  methods?: string[];
  roles?: string[];
  permissions?: string[];
}

/** The rules middleware runs everywhere and decides per rule, so its rules are shown instead of its name. */
const RULES_MIDDLEWARE = "authorization-rules";

function rulesOf(file: ConduitConfigFile): AuthorizationRule[] {
  const rules = (file.authorization as { rules?: unknown } | undefined)?.rules;
  return Array.isArray(rules) ? (rules as AuthorizationRule[]) : [];
}

/** Same matching as the rules middleware: method, then the path with or without `basePath`. */
function ruleApplies(rule: AuthorizationRule, route: RegisteredRoute, basePath: string): boolean {
  if (rule.methods && !rule.methods.some((method) => method.toUpperCase() === route.method)) return false;
  const relative = basePath !== "" && route.fullPath.startsWith(`${basePath}/`) ? route.fullPath.slice(basePath.length) : undefined;
  return [route.fullPath, relative].some((path) => path !== undefined && pathMatchesFilter(path, rule.path));
}

/**
 * The rows of `conduit routes`: each route with its group (first tag) and who may call it: the
 * authentication middleware that run for it ("public" when auth skips it, "none" without auth)
 * and the roles or permissions of the authorization rules that match it.
 */
export function describeRoutes(
  routes: readonly RegisteredRoute[],
  authMiddleware: readonly MiddlewareDefinition[],
  basePath: string,
  rules: AuthorizationRule[] = [],
  authType?: string,
): RouteRow[] {
  const stack = new MiddlewareStack();
  const authentication = authMiddleware.filter((middleware) => middleware.name !== RULES_MIDDLEWARE);
  for (const middleware of authentication) stack.add(middleware);
  return routes.map((route) => {
    // Every identity provider's middleware is "provider-auth": the config's type says which one.
    const applying = stack
      .forRequest(route.fullPath, basePath)
      .map((middleware) => (middleware.name === "provider-auth" && authType ? `${authType} (provider-auth)` : middleware.name));
    const needs = rules
      .filter((rule) => ruleApplies(rule, route, basePath))
      .flatMap((rule) => [
        ...(rule.roles?.length ? [`roles ${rule.roles.join("|")}`] : []),
        ...(rule.permissions?.length ? [`permissions ${rule.permissions.join("+")}`] : []),
      ]);
    const who = authentication.length === 0 ? "none" : applying.length === 0 ? "public" : applying.join(", ");
    return { method: route.method, path: route.fullPath, group: route.tags?.[0] ?? "-", auth: [who, ...needs].join("; ") };
  });
}

/**
 * `conduit routes`: the route table of the configured server.
 *
 * @example
 * await runRoutes(["--config", "conduit.json"], process.env);
 */
export async function runRoutes(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { present, rest } = takeBooleanFlags(argv, ["json"]);
  const rows = await inspectServer(rest, env, ROUTES_USAGE, ({ server, authMiddleware }, options) =>
    describeRoutes(
      server.listRoutes(),
      authMiddleware,
      server.getConfig().basePath,
      rulesOf(options.file),
      (options.file.auth as { type?: string } | undefined)?.type,
    ),
  );
  if (present.has("json")) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  const style = terminalStyle(process.stdout, env);
  const header: RouteRow = { method: "METHOD", path: "PATH", group: "GROUP", auth: "AUTH" };
  const widths = (["method", "path", "group"] as const).map((key) => Math.max(...[header, ...rows].map((row) => row[key].length)));
  const line = (row: RouteRow) =>
    [row.method.padEnd(widths[0] as number), row.path.padEnd(widths[1] as number), row.group.padEnd(widths[2] as number), row.auth].join(
      "  ",
    );
  process.stdout.write(`${style.bold(line(header))}\n${rows.map((row) => line(row)).join("\n")}\n`);
}
