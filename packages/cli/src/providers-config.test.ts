import { startFakeGemini, type VendorFake } from "@conduit-ai/fakes";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runConduitInProcess } from "./test-support/run-in-process.js";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "./test-support/spawn-conduit.js";

// The top-level `providers` key of the one config file: read by conduit serve, conduit proxy and
// the demo, checked before anything starts (exit 2 naming the key), handed to the runtime.
const proxySection = {
  enabled: true,
  clientKeys: ["providers-client-key-0123456789"],
  accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-providers-test" }],
};
const commands = {
  serve: { args: ["serve", "--port", "0", "--host", "127.0.0.1"], ready: "Conduit listening on " },
  proxy: { args: ["proxy", "--port", "0", "--host", "127.0.0.1"], ready: "Conduit proxy listening on " },
} as const;
const quiet = {
  HOST: "",
  OPENAI_API_KEY: "",
  ANTHROPIC_API_KEY: "",
  CONDUIT_ADMIN_KEY: "",
  GROQ_API_KEY: "",
  GOOGLE_GENERATIVE_AI_API_KEY: "",
};

/** In-process: the config is refused before anything starts (a start instead fails on the code). */
async function exitCodeAndError(command: keyof typeof commands, file: unknown, env: NodeJS.ProcessEnv = {}) {
  const { code, stderr } = await runConduitInProcess([...commands[command].args, "--config", writeConfig(file)], { ...quiet, ...env });
  return { outcome: code, stderr };
}

afterEach(killLeftovers);

describe("the providers key of conduit serve and conduit proxy", { timeout: 60_000 }, () => {
  it.each(["serve", "proxy"] as const)(
    "%s: a missing setting, an unknown type or an unset env: secret exits 2 naming the key",
    async (command) => {
      const missing = await exitCodeAndError(command, { proxy: proxySection, providers: { gemini: { type: "google" } } });
      expect(missing.outcome, missing.stderr).toBe(2);
      expect(missing.stderr.trim()).toMatch(/providers\.gemini\.apiKeys: expected a non-empty array$/);
      const unknown = await exitCodeAndError(command, { proxy: proxySection, providers: { bard: { type: "palm" } } });
      expect(unknown.outcome, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain('providers.bard.type: unknown provider type "palm"');
      const unset = await exitCodeAndError(command, {
        proxy: proxySection,
        providers: { fast: { type: "groq", apiKeys: ["env:FAST_GROQ_KEY"] } },
      });
      expect(unset.outcome, unset.stderr).toBe(2);
      expect(unset.stderr).toContain("providers.fast.apiKeys[0]: environment variable FAST_GROQ_KEY is not set");
      expect(unset.stderr.trim().split("\n")).toHaveLength(1);
    },
  );
});

describe("providers from the config file reach the runtime", { timeout: 60_000 }, () => {
  let gemini: VendorFake & { baseURL: string };
  beforeAll(async () => {
    gemini = await startFakeGemini();
    gemini.keys.add("gemini-from-env");
  });
  afterAll(() => gemini.close());

  it("serve: /api/agent/generate answers model '<name>/<model>' through the configured provider, its key read from env:", async () => {
    const file = { providers: { gemini: { type: "google", apiKeys: ["env:MY_GEMINI_KEY"], baseURL: gemini.baseURL } } };
    const run = spawnConduit([...commands.serve.args, "--config", writeConfig(file)], { ...quiet, MY_GEMINI_KEY: "gemini-from-env" });
    const port = portOf(await run.ready);
    const response = await fetch(`http://127.0.0.1:${port}/api/agent/generate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "hi" }, model: "gemini/gemini-2.5-flash" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      data: { content: "Gemini heard 1 messages", provider: "gemini", model: "gemini-2.5-flash" },
    });
    expect(gemini.requests.at(-1)?.headers["x-goog-api-key"]).toBe("gemini-from-env");
  });
});
