import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TokenExpiredError } from "../errors/auth-errors.js";
import { createCustomProvider } from "./custom-provider.js";

describe("custom provider", () => {
  it("wraps a validate function; null, a throw or a user without id is a 401", async () => {
    const provider = createCustomProvider(
      {
        validate: (token) => {
          if (token === "good") return { id: "u1", roles: ["admin"] };
          if (token === "boom") throw new Error("database down");
          if (token === "old") throw new TokenExpiredError("custom");
          if (token === "anonymous") return { id: "" };
          return null;
        },
      },
      { sessions: false },
    );
    expect(await provider.authenticateToken("good")).toMatchObject({ valid: true, user: { id: "u1", roles: ["admin"], permissions: [] } });
    for (const token of ["bad", "boom", "anonymous"]) {
      const result = await provider.authenticateToken(token);
      expect(!result.valid && result.error).toMatchObject({ statusCode: 401, code: "AUTH_INVALID", provider: "custom" });
    }
    const old = await provider.authenticateToken("old");
    expect(!old.valid && old.error.code).toBe("TOKEN_EXPIRED");
  });

  it("loads the check from a module named in a config file", async () => {
    const directory = mkdtempSync(join(tmpdir(), "conduit-custom-"));
    const file = join(directory, "validate.mjs");
    writeFileSync(file, 'export function validate(token) { return token === "mod" ? { id: "from-module" } : null; }\n');
    const provider = createCustomProvider({ module: file }, { sessions: false });
    await provider.initialize();
    expect(await provider.authenticateToken("mod")).toMatchObject({ valid: true, user: { id: "from-module" } });
    expect(() => createCustomProvider({})).toThrow(/exactly one of validate, module/);
  });
});
