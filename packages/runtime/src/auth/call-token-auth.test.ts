import { startIdentityServer } from "@conduit-ai/fakes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRuntime } from "../create-runtime.js";
import type { ToolDefinition } from "../tools/runtime-tool.js";

describe("per-call token validation in the runtime", () => {
  let idp: Awaited<ReturnType<typeof startIdentityServer>>;
  beforeAll(async () => {
    idp = await startIdentityServer();
  });
  afterAll(() => idp.close());

  // Named `calculator` so the offline local provider calls it for arithmetic; it answers the identity it was called with.
  const whoAmI: ToolDefinition = {
    name: "calculator",
    description: "Answers the caller's identity as the runtime sees it",
    schema: z.object({ expression: z.string() }),
    execute: (_args, context) => ({
      userId: context.userId,
      userEmail: context.userEmail,
      userRoles: context.userRoles,
      user: context.user?.id,
    }),
  };

  it("creates the provider lazily from the pending config, on the first call that carries a token", async () => {
    const runtime = createRuntime({ builtinTools: false, auth: { type: "jwt", jwksUrl: idp.jwksUrl, issuer: idp.issuer } });
    await runtime.generate({ input: { text: "hello" } });
    expect(idp.totalJwksFetches()).toBe(0); // no token, no provider
    const token = await idp.sign({ sub: "token-user", email: "t@example.com", roles: ["analyst"] });
    await runtime.generate({ input: { text: "hello" } }, { authToken: token });
    expect(idp.totalJwksFetches()).toBe(1);
    await runtime.close();
  });

  it("merges the token's user into the call context, overriding the request context", async () => {
    const runtime = createRuntime({
      builtinTools: false,
      tools: [whoAmI],
      auth: { type: "jwt", jwksUrl: idp.jwksUrl, issuer: idp.issuer },
    });
    const token = await idp.sign({ sub: "token-user", email: "t@example.com", roles: ["analyst"] });
    const result = await runtime.generate(
      { input: { text: "What is 2 + 3?" }, tools: ["calculator"] },
      { authToken: token, user: { id: "request-user", email: "r@example.com", roles: ["guest"], permissions: [] } },
    );
    const toolResult = result.toolResults.find((entry) => entry.name === "calculator")?.result;
    expect(toolResult).toEqual({ userId: "token-user", userEmail: "t@example.com", userRoles: ["analyst"], user: "token-user" });
    await runtime.close();
  });

  it("raises InvalidTokenError with the provider type for a refused token, in generate and at the first read of a stream", async () => {
    const runtime = createRuntime({ builtinTools: false, auth: { type: "oidc", issuer: idp.issuer } });
    const refused = runtime.generate({ input: { text: "hi" } }, { authToken: "not-a-token" });
    await expect(refused).rejects.toMatchObject({ name: "InvalidTokenError", provider: "oauth2", statusCode: 401 });
    const stream = runtime.stream({ input: { text: "hi" } }, { authToken: "not-a-token" });
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ name: "InvalidTokenError", provider: "oauth2" });
    const expired = await idp.sign({ sub: "u" }, { expiresInSec: -60 });
    const jwtRuntime = createRuntime({ builtinTools: false, auth: { type: "jwt", jwksUrl: idp.jwksUrl } });
    await expect(jwtRuntime.generate({ input: { text: "hi" } }, { authToken: expired })).rejects.toMatchObject({
      name: "InvalidTokenError",
      provider: "jwt",
    });
    await runtime.close();
    await jwtRuntime.close();
  });

  it("times out a validation after 5 s with InvalidTokenError", async () => {
    const { CallTokenAuth } = await import("./call-token-auth.js");
    const never = { type: "slow", authenticateToken: () => new Promise<never>(() => undefined) };
    const auth = new CallTokenAuth(never, 50);
    await expect(auth.apply({ authToken: "t" })).rejects.toMatchObject({
      name: "InvalidTokenError",
      provider: "slow",
      message: expect.stringContaining("timed out"),
    });
    expect((await import("./call-token-auth.js")).TOKEN_VALIDATION_TIMEOUT_MS).toBe(5000);
  });
});
