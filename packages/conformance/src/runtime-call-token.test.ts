import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { type ToolDefinition, createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, registerAllRoutes } from "@conduit-ai/server-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { forEachAdapter } from "./harness.js";

/**
 * docs/spec.md "Per-call token validation in the runtime", reached over HTTP: the request's bearer token
 * travels to the runtime as `authToken`, the runtime's own provider checks it against a real
 * key set (jose keys served by a local identity server), and the token's identity is what the
 * runtime's tools see; a refused token is a 401 in the error envelope.
 */
let idp: IdentityServer;
beforeAll(async () => {
  idp = await startIdentityServer();
});
afterAll(() => idp.close());

// Named `calculator` so the offline local provider calls it for arithmetic; it answers the identity it ran with.
const whoAmI: ToolDefinition = {
  name: "calculator",
  description: "Answers the caller's identity as the runtime sees it",
  schema: z.object({ expression: z.string() }),
  execute: (_args, context) => ({ userId: context.userId, userEmail: context.userEmail, userRoles: context.userRoles }),
};

const setup = (adapter: BaseServerAdapter<unknown>) => {
  registerAllRoutes(adapter);
};

forEachAdapter("runtime per-call token over HTTP", ({ start }) => {
  it("hands the bearer token to the runtime's token validation and runs the call as the token's user", async () => {
    const runtime = createRuntime({
      builtinTools: false,
      tools: [whoAmI],
      auth: { type: "jwt", jwksUrl: idp.jwksUrl, issuer: idp.issuer },
    });
    const server = await start({ runtime, config: { rateLimit: { enabled: false } }, setup });
    try {
      const token = await idp.sign({ sub: "token-user", email: "t@example.com", roles: ["analyst"] });
      const post = (authorization?: string) =>
        fetch(server.url("/api/agent/execute"), {
          method: "POST",
          headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ input: { text: "What is 2 + 3?" }, tools: ["calculator"] }),
        });
      const accepted = await post(`bearer ${token}`);
      expect(accepted.status).toBe(200);
      const body = (await accepted.json()) as { data: { toolResults: Array<{ name: string; result: unknown }> } };
      expect(body.data.toolResults.find((entry) => entry.name === "calculator")?.result).toEqual({
        userId: "token-user",
        userEmail: "t@example.com",
        userRoles: ["analyst"],
      });

      const refused = await post("Bearer not-a-token");
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("AUTH_INVALID");

      // No bearer credential (none, or another scheme): the call runs anonymously, as before.
      for (const authorization of [undefined, "Basic dTpw"]) {
        const anonymous = await post(authorization);
        expect(anonymous.status).toBe(200);
        const result = ((await anonymous.json()) as { data: { toolResults: Array<{ result: { userId?: string } }> } }).data.toolResults[0];
        expect(result?.result.userId).toBeUndefined();
      }

      const embedded = await fetch(server.url("/api/agent/embed"), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer not-a-token" },
        body: JSON.stringify({ text: "x" }),
      });
      expect(embedded.status).toBe(401);
    } finally {
      await runtime.close();
    }
  });

  it("/agent/stream refuses a refused token before the stream starts: 401 in the envelope, as /agent/execute does", async () => {
    const runtime = createRuntime({
      builtinTools: false,
      tools: [whoAmI],
      auth: { type: "jwt", jwksUrl: idp.jwksUrl, issuer: idp.issuer },
    });
    const server = await start({ runtime, config: { rateLimit: { enabled: false } }, setup });
    try {
      const stream = (authorization?: string, accept = "text/event-stream") =>
        fetch(server.url("/api/agent/stream"), {
          method: "POST",
          headers: { "content-type": "application/json", accept, ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ input: { text: "What is 2 + 3?" }, tools: ["calculator"] }),
        });
      for (const accept of ["text/event-stream", "application/x-ndjson"]) {
        const refused = await stream("Bearer not-a-token", accept);
        expect(refused.status, accept).toBe(401);
        expect(refused.headers.get("content-type")).toContain("application/json");
        const body = (await refused.json()) as { error: { code: string; category: string } };
        expect(body.error).toMatchObject({ code: "AUTH_INVALID", category: "AUTHENTICATION" });
      }
      // A good token streams, and the tool ran as the token's user.
      const token = await idp.sign({ sub: "stream-user", email: "s@example.com", roles: ["analyst"] });
      const accepted = await stream(`Bearer ${token}`);
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get("content-type")).toContain("text/event-stream");
      const frames = await accepted.text();
      expect(frames).toContain('"userId":"stream-user"');
      expect(frames).toMatch(/event: finish/);
      // No bearer token: the call streams anonymously, as before.
      const anonymous = await stream();
      expect(anonymous.status).toBe(200);
      expect(await anonymous.text()).not.toContain('"userId"');
    } finally {
      await runtime.close();
    }
  });
});
