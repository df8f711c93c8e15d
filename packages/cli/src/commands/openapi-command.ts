import { createDocsRoutes, isRawResponse } from "@conduit-ai/server-core";
import { inspectServer, takeBooleanFlags } from "./inspect-server.js";

export const OPENAPI_USAGE = `Usage: conduit openapi [--yaml] [--config file.json] [--framework hono|express|fastify|koa]
Prints the OpenAPI 3.1 document of the configured server (JSON, or YAML with --yaml) without starting it:
the same document the server serves at /api/docs/openapi.json.`;

/**
 * `conduit openapi`: the document generated from the assembled server's route table, through
 * the same docs routes the server mounts (so the command and `/api/docs/openapi.*` never differ).
 *
 * @example
 * await runOpenApi(["--yaml"], process.env);
 */
export async function runOpenApi(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { present, rest } = takeBooleanFlags(argv, ["yaml"]);
  const document = await inspectServer(rest, env, OPENAPI_USAGE, async ({ server }) => {
    const docs = createDocsRoutes({ getRoutes: () => server.listRoutes(), basePath: server.getConfig().basePath });
    const path = present.has("yaml") ? "/openapi.yaml" : "/openapi.json";
    const route = docs.routes.find((candidate) => candidate.path === path);
    // The docs handlers read nothing from the request.
    const response = await route?.handler({} as never);
    if (!isRawResponse(response) || typeof response.body !== "string") throw new Error("the docs routes returned no document");
    return response.body;
  });
  process.stdout.write(document.endsWith("\n") ? document : `${document}\n`);
}
