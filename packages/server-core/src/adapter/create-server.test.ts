import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors/index.js";
import { createServer } from "./create-server.js";

describe("createServer", () => {
  it("loads the default adapter (hono) lazily", async () => {
    const server = await createServer(undefined, { config: { port: 0, host: "127.0.0.1", logging: { enabled: false } } });
    expect(server.framework).toBe("hono");
    expect(server.getLifecycleState()).toBe("uninitialized");
  });

  it("refuses an unknown framework and an invalid config before loading anything", async () => {
    await expect(createServer(undefined, { framework: "nest" as never })).rejects.toBeInstanceOf(ConfigurationError);
    await expect(createServer(undefined, { config: { port: -1 } })).rejects.toBeInstanceOf(ConfigurationError);
  });
});
