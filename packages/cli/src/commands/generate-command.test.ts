import { afterEach, describe, expect, it, vi } from "vitest";
import { type FakeOpenAI, type FakeScenario, startFakeOpenAI } from "@conduit-ai/fakes";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers, spawnConduit } from "../test-support/spawn-conduit.js";

/** No vendor keys: the runtime falls back to its offline local provider. */
const OFFLINE = { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", NO_COLOR: "" };
const ESCAPE = "\u001b[";

let upstream: FakeOpenAI | undefined;
afterEach(async () => {
  killLeftovers();
  await upstream?.close();
  upstream = undefined;
});

const openaiEnv = (fake: FakeOpenAI) => ({ ...OFFLINE, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.baseURL });

/** A provider answering "Hello from upstream"; a stream sends "Hello " and holds the rest until `release()`. */
async function startHelloUpstream(scenario: FakeScenario = "text"): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI({ answer: () => ({ text: ["Hello ", "from upstream"], hold: true, usage: { input: 5, output: 3 } }) });
  fake.scenario = scenario;
  return fake;
}

describe("conduit generate", { timeout: 90_000 }, () => {
  it("--input answers on stdout with the offline local provider (no colour off a TTY)", async () => {
    const result = await runConduitInProcess(["generate", "--input", "hello"], OFFLINE);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Local answer (provider "local", no language model): you said "hello".\n');
    expect(result.stderr).toBe("");
  });

  it("the legacy positional form works, with one deprecation line on stderr", async () => {
    const result = await runConduitInProcess(["generate", "hello there"], OFFLINE);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('you said "hello there"');
    expect(result.stderr.trim().split("\n")).toEqual(['conduit generate "text" is deprecated: use conduit generate --input "text"']);
  });

  it("--json prints the whole result as JSON", async () => {
    const result = await runConduitInProcess(["generate", "--input", "hi", "--json"], OFFLINE);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      content: expect.stringContaining('you said "hi"'),
      provider: "local",
      usage: { totalTokens: expect.any(Number) },
    });
    expect(result.stdout).not.toContain(ESCAPE);
  });

  it("--provider, --model and --system reach the provider", async () => {
    upstream = await startHelloUpstream();
    const result = await runConduitInProcess(
      ["generate", "--input", "hi", "--provider", "openai", "--model", "gpt-4o", "--system", "Be brief."],
      openaiEnv(upstream),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Hello from upstream\n");
    expect(upstream.requests[0]?.body).toMatchObject({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("--stream prints text as it arrives", async () => {
    upstream = await startHelloUpstream();
    const fake = upstream;
    const conduit = spawnConduit(["generate", "--input", "hi", "--provider", "openai", "--stream"], openaiEnv(fake));
    // The first words are on stdout while the provider still holds the rest of its answer.
    await vi.waitFor(() => expect(conduit.output().stdout).toBe("Hello "), { timeout: 20_000 });
    fake.release();
    expect(await conduit.exited).toBe(0);
    expect(conduit.output().stdout).toBe("Hello from upstream\n");
  });

  it("--stream --json prints every stream event as one JSON line", async () => {
    const result = await runConduitInProcess(["generate", "--input", "hi", "--stream", "--json"], OFFLINE);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.type)).toContain("text-delta");
    expect(events.at(-1).type).toBe("finish");
  });

  it("a provider error exits 1 with the runtime's message on one line", async () => {
    upstream = await startHelloUpstream("unauthorized");
    for (const mode of [[], ["--stream"]]) {
      const result = await runConduitInProcess(["generate", "--input", "hi", "--provider", "openai", ...mode], openaiEnv(upstream));
      expect(result.code).toBe(1);
      expect(result.stdout.trim()).toBe("");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(
        /^Provider error \(PROVIDER_AUTH_FAILED\): Provider "openai" rejected the configured credentials \(401\)$/m,
      );
    }
  });

  it.each([
    [["generate"], /Missing prompt/],
    [["generate", "--input", " "], /Missing prompt/],
    [["generate", "--input", "a", "b"], /--input or a positional text, not both/],
    [["generate", "one", "two"], /Expected one prompt/],
    [["generate", "--input", "a", "--temperature", "2"], /Unknown option '--temperature'/],
    [["generate", "--input", "a", "--provider", "nope"], /Provider "nope" is not configured/],
  ])("%j is a usage error: exit 2, one line", async (args, message) => {
    const result = await runConduitInProcess(args, OFFLINE);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
