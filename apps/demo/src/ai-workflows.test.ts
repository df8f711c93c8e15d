import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const mainFile = fileURLToPath(new URL("./main.ts", import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** One demo process on a free port (sharing Redis under `keyPrefix` when given); resolves its base URL. */
function startDemo(keyPrefix: string | undefined, config?: unknown): Promise<string> {
  const args = ["--conditions=@conduit-ai/source", "--import", "tsx", mainFile, "--port", "0", "--host", "127.0.0.1"];
  if (config !== undefined) {
    const file = join(mkdtempSync(join(tmpdir(), "conduit-demo-")), "config.json");
    writeFileSync(file, JSON.stringify(config));
    args.push("--config", file);
  }
  const redis =
    keyPrefix === undefined
      ? { REDIS_URL: "" }
      : { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", REDIS_KEY_PREFIX: keyPrefix };
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...redis, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ANTHROPIC_API_KEY: "", PORT: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      const port = /listening on http:\/\/[^:]+:(\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`demo exited with ${code}: ${stderr}`)));
  });
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes, read field by field
type Json = Record<string, any>;

async function post(url: string, body: unknown): Promise<Json> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Json }).data;
}

describe("the usage ledger across two demo processes on one Redis", () => {
  it("analyze-usage on either process counts the calls of both", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const [first, second] = await Promise.all([startDemo(keyPrefix), startDemo(keyPrefix)]);
    for (let index = 0; index < 3; index++) await post(`${first}/api/agent/execute`, { input: { text: `first ${index}` } });
    for (let index = 0; index < 2; index++) await post(`${second}/api/agent/execute`, { input: { text: `second ${index}` } });
    await post(`${second}/api/agent/embed`, { text: "embedded on the second" });
    for (const base of [first, second]) {
      const usage = await post(`${base}/api/ai/analyze-usage`, { timeframe: "1h", providers: [], includeOptimizations: true });
      expect(usage.window.backend).toBe("redis");
      expect(usage.tokenUsage.total.calls).toBe(6);
      expect(usage.tokenUsage.byModel.map((row: Record<string, unknown>) => [row.operation, row.calls])).toEqual([
        ["generate", 5],
        ["embed", 1],
      ]);
    }
  });
});

describe("the aiWorkflows section of the config file", () => {
  it("false leaves the endpoints out; invalid options stop the start naming them", async () => {
    const base = await startDemo(undefined, { aiWorkflows: false });
    const response = await fetch(`${base}/api/ai/analyze-usage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(404);
    await expect(startDemo(undefined, { aiWorkflows: { providerTimeoutMs: -1, colour: "red" } })).rejects.toThrow(
      /exited with 2: .*aiWorkflows\.providerTimeoutMs: expected a positive number; aiWorkflows\.colour: unknown key/,
    );
  });
});
