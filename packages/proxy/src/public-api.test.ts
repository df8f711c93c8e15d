import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as entry from "./index.js";

// The entry is a promise to every user: what applications and the workspace's other packages
// use, and no more. A translator or an internal of the relay does not leak out with a folder's
// `export *`; a new export is a choice, and this budget is where it is made.
const RUNTIME_EXPORT_BUDGET = 30;

/** What the other packages import from `@conduit-ai/proxy` (cli, conformance, bench). */
const IMPORTED_ELSEWHERE = [
  "createProxy",
  "registerProxyRoutes",
  "parseProxyConfig",
  "chatCompletionsFor",
  "createChatCompletionsRoute",
  "createClientCheck",
  "createCodexRoute",
  "createCodexRouteGroup",
  "createCodexSender",
  "MemoryPoolStore",
  "RedisPoolStore",
];

describe("the public entry", () => {
  it(`exports at most ${RUNTIME_EXPORT_BUDGET} runtime values, everything other packages import among them`, () => {
    const names = Object.keys(entry);
    expect(names.length).toBeLessThanOrEqual(RUNTIME_EXPORT_BUDGET);
    expect(names).toEqual(expect.arrayContaining(IMPORTED_ELSEWHERE));
  });

  it("names every export: no `export *`", () => {
    const source = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
    expect(source).not.toMatch(/export\s*\*/);
  });
});
