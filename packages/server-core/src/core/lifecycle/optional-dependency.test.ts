import { afterAll, describe, expect, it } from "vitest";
import { detectPackageManager, installCommand } from "../../errors/install-command.js";
import { MissingDependencyError } from "../../errors/server-errors.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { importOptionalDependency, isMissingPackage, loadOptionalDependency, requireInstalled } from "./optional-dependency.js";

describe("install line for the package manager in use", () => {
  it.each([
    ["npm/10.9.0 node/v20.20.2 linux x64 workspaces/false", "npm install pino prom-client"],
    ["pnpm/10.34.8 npm/? node/v20.20.2 linux x64", "pnpm add pino prom-client"],
    ["yarn/4.5.0 npm/? node/v20.20.2 linux x64", "yarn add pino prom-client"],
    ["bun/1.2.0 npm/? node/v20.20.2 linux x64", "bun add pino prom-client"],
    ["", "npm install pino prom-client"], // no user agent (undefined would read this process's own)
    ["something-else/1.0", "npm install pino prom-client"],
  ])("user agent %s → %s", (userAgent, expected) => {
    expect(installCommand(["pino", "prom-client"], detectPackageManager(userAgent))).toBe(expected);
  });

  it("MissingDependencyError reads npm_config_user_agent when no manager is given", () => {
    const saved = process.env.npm_config_user_agent;
    process.env.npm_config_user_agent = "yarn/4.5.0 npm/? node/v20.20.2";
    try {
      const error = new MissingDependencyError("swagger-ui-dist", { feature: "the API docs routes (enableSwagger)" });
      expect(error.message).toBe(
        'Missing dependency "swagger-ui-dist" (needed by the API docs routes (enableSwagger)). Install it with: yarn add swagger-ui-dist',
      );
      expect(error.details).toMatchObject({ package: "swagger-ui-dist", install: "yarn add swagger-ui-dist" });
    } finally {
      if (saved === undefined) delete process.env.npm_config_user_agent;
      else process.env.npm_config_user_agent = saved;
    }
  });
});

describe("loadOptionalDependency", () => {
  it("loads an installed package", () => {
    const bytes = loadOptionalDependency<(value: string) => number>("bytes", { feature: "test" });
    expect(bytes("1kb")).toBe(1024);
  });

  it("raises MissingDependencyError naming an absent package and what needs it", () => {
    let raised: unknown;
    try {
      loadOptionalDependency("@conduit-ai/not-installed-anywhere", { feature: "a test feature" });
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(MissingDependencyError);
    expect(raised).toMatchObject({ code: "MISSING_DEPENDENCY", packageName: "@conduit-ai/not-installed-anywhere" });
    expect((raised as Error).message).toMatch(
      /needed by a test feature.*(npm install|pnpm add|yarn add|bun add) @conduit-ai\/not-installed-anywhere/,
    );
  });

  it("tells a package's own missing dependency apart from the package missing", () => {
    const nested = Object.assign(new Error("Cannot find module 'sonic-boom'\nRequire stack:\n- /x/node_modules/pino/pino.js"), {
      code: "MODULE_NOT_FOUND",
    });
    expect(isMissingPackage(nested, "pino")).toBe(false);
    expect(isMissingPackage(nested, "sonic-boom")).toBe(true);
    const subpath = Object.assign(new Error("Cannot find package 'openapi3-ts/oas31' imported from /x"), { code: "ERR_MODULE_NOT_FOUND" });
    expect(isMissingPackage(subpath, "openapi3-ts")).toBe(true);
  });
});

describe("requireInstalled", () => {
  it("passes when every package is installed", () => {
    expect(() => requireInstalled(["bytes", "proxy-addr"], { feature: "test" })).not.toThrow();
  });

  it("lists every absent package in one install line", () => {
    let raised: unknown;
    try {
      requireInstalled(["bytes", "@conduit-ai/absent-one", "@conduit-ai/absent-two"], { feature: "docs" });
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(MissingDependencyError);
    expect((raised as MissingDependencyError).details).toMatchObject({ packages: ["@conduit-ai/absent-one", "@conduit-ai/absent-two"] });
    expect((raised as Error).message).toMatch(/ @conduit-ai\/absent-one @conduit-ai\/absent-two$/);
  });
});

describe("importOptionalDependency", () => {
  const folder = mkdtempSync(join(tmpdir(), "conduit-optional-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const moduleFile = (name: string, source: string) => {
    const file = join(folder, name);
    writeFileSync(file, source);
    return pathToFileURL(file).href;
  };

  it("names the install line when the package itself is absent, keeping the import failure as cause", async () => {
    const raised = await importOptionalDependency("@conduit-ai/absent-one", () => import("@conduit-ai/absent-one" as string), {
      feature: "a test feature",
    }).catch((error: unknown) => error);
    expect(raised).toBeInstanceOf(MissingDependencyError);
    expect((raised as Error).message).toContain("@conduit-ai/absent-one");
    expect((raised as Error & { cause?: { code?: string } }).cause?.code).toBe("ERR_MODULE_NOT_FOUND");
  });

  it("rethrows the real cause when the package is there but fails to load", async () => {
    const broken = moduleFile("broken.mjs", "throw new Error('the package is broken: bad config');\n");
    await expect(importOptionalDependency("broken", () => import(broken), { feature: "test" })).rejects.toThrow(
      "the package is broken: bad config",
    );
  });

  it("rethrows when one of the package's own dependencies is missing (not the package itself)", async () => {
    const dependent = moduleFile("dependent.mjs", "import '@conduit-ai/absent-transitive';\n");
    const raised = await importOptionalDependency("dependent", () => import(dependent), { feature: "test" }).catch(
      (error: unknown) => error,
    );
    expect(raised).not.toBeInstanceOf(MissingDependencyError);
    expect((raised as Error).message).toContain("@conduit-ai/absent-transitive");
  });
});
