#!/usr/bin/env node
// The client libraries against Conduit: the Vercel AI SDK 6 (`ai`, `@ai-sdk/anthropic`,
// `@ai-sdk/openai`, `@ai-sdk/openai-compatible`) and LangChain JS (`@langchain/anthropic`,
// `@langchain/openai`), installed from npm into a scratch folder (never workspace dependencies)
// and used unchanged against `conduit proxy` and `conduit serve` (a `proxy` key) in front of a
// loopback fake of the Anthropic Messages API — and, on `/v1/chat/completions`, of a Gemini and
// a Bedrock model (`providers` of type `google` and `bedrock` in front of their fakes). A
// recording tap in front of Conduit lists every call each client made and what it got.
//
// Usage: node tools/scripts/sdk-clients-check.mjs [--only ai-sdk|langchain|providers] [--install-only]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { aiSdkChecks } from "./real-clients/ai-sdk-checks.mjs";
import { callsOf, createCheckRunner, expect, summaryOf } from "./real-clients/check-runner.mjs";
import { startConduit } from "./real-clients/conduit-process.mjs";
import { startFakeAnthropicAgent } from "../../packages/fakes/src/agents/fake-anthropic-agent.mjs";
import { langChainChecks } from "./real-clients/langchain-checks.mjs";
import { providerChecks } from "./real-clients/provider-checks.mjs";
import { startRecordingTap } from "./real-clients/recording-tap.mjs";
import { makeWorkspace } from "./real-clients/run-cli.mjs";
import { startVendorFakes } from "./real-clients/vendor-fakes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// `pnpm test:sdk-clients -- --only langchain` passes the "--" on; it is skipped.
const { values: options } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: { only: { type: "string" }, "install-only": { type: "boolean" } },
});
// The newest releases that run on Node 20: ai 7 / @ai-sdk/* 4 and @langchain/openai ≥ 1.5.9 need Node 22.
const CLIENTS = {
  ai: "6.0.325",
  "@ai-sdk/anthropic": "3.0.140",
  "@ai-sdk/openai": "3.0.141",
  "@ai-sdk/openai-compatible": "2.0.92",
  "@langchain/core": "1.4.0",
  "@langchain/anthropic": "1.5.11",
  "@langchain/openai": "1.5.8",
  zod: "4.6.7",
};
const CLIENT_KEY = "sdk-clients-client-key-0123456789";
const ANTHROPIC_KEY = "sk-ant-sdk-clients-pool";
/** What the fake Anthropic agent answers a prompt without a file to read. */
const PLAIN_ANSWER = "OK from the fake Anthropic upstream.";
/** What the Gemini and Bedrock fakes answer a prompt without tools. */
const VENDOR_ANSWER = "Hello from the vendor's fake model.";
const runner = createCheckRunner("sdk-clients");

/** Installs the pinned libraries once into node_modules/.cache (reused while the versions match). */
function installClients() {
  const folder = join(root, "node_modules/.cache/conduit-sdk-clients");
  const installed = Object.entries(CLIENTS).every(([name, version]) => {
    const manifest = join(folder, "node_modules", name, "package.json");
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === version;
  });
  if (!installed) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "conduit-sdk-clients", private: true }));
    const specs = Object.entries(CLIENTS).map(([name, version]) => `${name}@${version}`);
    runner.log(`installing ${specs.join(" ")}`);
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", ...specs], {
      cwd: folder,
      stdio: "inherit",
    });
  }
  return folder;
}

/** Imports the libraries from the scratch folder (resolved from there, not from the workspace). */
async function loadClients(folder) {
  const require = createRequire(join(folder, "package.json"));
  const load = (name) => import(pathToFileURL(require.resolve(name)).href);
  const [ai, anthropic, openai, compatible, zod, langChainAnthropic, langChainOpenAI, messages, tools] = await Promise.all(
    [
      "ai",
      "@ai-sdk/anthropic",
      "@ai-sdk/openai",
      "@ai-sdk/openai-compatible",
      "zod",
      "@langchain/anthropic",
      "@langchain/openai",
      "@langchain/core/messages",
      "@langchain/core/tools",
    ].map(load),
  );
  return {
    ai,
    z: zod.z,
    createAnthropic: anthropic.createAnthropic,
    createOpenAI: openai.createOpenAI,
    createOpenAICompatible: compatible.createOpenAICompatible,
    ChatAnthropic: langChainAnthropic.ChatAnthropic,
    ChatOpenAI: langChainOpenAI.ChatOpenAI,
    HumanMessage: messages.HumanMessage,
    langChainTool: tools.tool,
  };
}

/**
 * The assertions every check shares, around one client call `body` (which returns the final text):
 * the answer arrived; the client made `calls` calls, all to `path`, all answered `status` (200;
 * a refusal's OpenAI error names `param` and says x-should-retry: false), streamed as SSE when
 * `streamed`; for a tool round, the Anthropic upstream saw the tool's result.
 */
function callExpectations(tap, anthropic) {
  return (name, { path, calls, status = 200, param, streamed = false, answer = PLAIN_ANSWER, toolResult = false }, body) =>
    runner.check(name, async () => {
      const before = tap.exchanges.length;
      const upstreamBefore = anthropic.requests.length;
      const started = performance.now();
      let text;
      try {
        text = await body();
      } catch (error) {
        throw new Error(`${error.message}; calls: ${summaryOf(tap.exchanges.slice(before))}`);
      }
      const ms = Math.round(performance.now() - started);
      const exchanges = tap.exchanges.slice(before);
      const listed = callsOf(exchanges).join(", ") || "none";
      if (answer !== null) expect(text === answer, `answer ${JSON.stringify(text)}, expected ${JSON.stringify(answer)}; calls: ${listed}`);
      expect(exchanges.length === calls, `${exchanges.length} calls, expected ${calls}: ${listed}`);
      const unexpected = exchanges.filter((call) => call.status !== status);
      expect(
        unexpected.length === 0,
        `not ${status}: ${unexpected.map((call) => `${call.method} ${call.url} → ${call.status} ${call.responseBody ?? ""}`).join("; ")}`,
      );
      expect(
        exchanges.every((call) => call.method === "POST" && call.url.split("?")[0] === path),
        `expected only POST ${path}: ${listed}`,
      );
      if (param !== undefined) {
        const errors = exchanges.map((call) => JSON.parse(call.responseBody ?? "{}").error);
        expect(
          errors.every((error) => error?.param === param),
          `the error does not name ${param}: ${exchanges.map((call) => call.responseBody).join("; ")}`,
        );
        const retry = exchanges.map((call) => call.responseHeaders?.["x-should-retry"]);
        expect(
          retry.every((value) => value === "false"),
          `x-should-retry: ${retry.join(", ")}`,
        );
      }
      if (streamed) {
        const types = exchanges.map((call) => String(call.responseHeaders?.["content-type"]));
        expect(
          types.every((type) => type.startsWith("text/event-stream")),
          `not streamed: ${types.join(", ")}`,
        );
      }
      if (toolResult) {
        const upstream = anthropic.requests.slice(upstreamBefore);
        const sawResult = upstream.some((request) => request.body.includes('"tool_result"') && request.body.includes("pineapple-42"));
        expect(sawResult, "the Anthropic upstream never saw the Read tool's result as a tool_result");
      }
      return `${ms} ms; ${answer === null ? `${text}; ` : ""}calls: ${summaryOf(exchanges)}`;
    });
}

const anthropic = await startFakeAnthropicAgent({ apiKey: ANTHROPIC_KEY });
const providersWorkspace = makeWorkspace();
const vendors = await startVendorFakes({ workspace: providersWorkspace, answer: VENDOR_ANSWER });
const proxy = {
  enabled: true,
  upstream: { anthropic: anthropic.url },
  clientKeys: [CLIENT_KEY],
  accounts: [{ id: "claude-pool", type: "api-key", apiKey: ANTHROPIC_KEY }],
};
const started = performance.now();
// `--install-only`: CI installs the pinned versions in the background while it builds, then runs the checks.
if (options["install-only"]) {
  installClients();
  process.exit(0);
}

try {
  const sdk = await loadClients(installClients());
  const loaded = performance.now();
  runner.log(
    `${Object.entries(CLIENTS)
      .map(([name, version]) => `${name} ${version}`)
      .join(", ")}; Node ${process.versions.node}`,
  );
  for (const command of ["proxy", "serve"]) {
    const conduit = await startConduit(root, command, { proxy, providers: vendors.providers });
    const tap = await startRecordingTap(conduit.url);
    const checks = {
      sdk,
      baseUrl: `${tap.url}/v1`,
      rootUrl: tap.url,
      clientKey: CLIENT_KEY,
      workspace: makeWorkspace(),
      expectCalls: callExpectations(tap, anthropic),
      label: command,
    };
    try {
      if (options.only === undefined || options.only === "ai-sdk") await aiSdkChecks(checks);
      if (options.only === undefined || options.only === "langchain") await langChainChecks(checks);
      if (options.only === undefined || options.only === "providers")
        await providerChecks({ ...checks, workspace: providersWorkspace, fakes: vendors, answer: VENDOR_ANSWER });
    } finally {
      await tap.close();
      await conduit.stop();
    }
  }
  runner.log(`checks ran in ${Math.round(performance.now() - loaded)} ms (install and imports ${Math.round(loaded - started)} ms)`);
} catch (error) {
  runner.fail("setup", error);
} finally {
  await anthropic.close();
  await vendors.close();
}
runner.finish();
