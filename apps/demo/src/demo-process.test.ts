import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const mainFile = fileURLToPath(new URL("./main.ts", import.meta.url));
const children: ChildProcess[] = [];

function startDemo(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--conditions=@conduit-ai/source", "--import", "tsx", mainFile, ...args], {
    env: { ...process.env, ...env, PORT: env.PORT ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const line = stdout.split("\n").find((text) => text.startsWith("Conduit listening on "));
      if (line) resolve(line);
    });
    void exited.then((code) => reject(new Error(`demo exited with ${code}: ${stderr}`)));
  });
  ready.catch(() => undefined); // tests of failing starts await `exited` instead
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

function writeConfig(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "conduit-demo-")), "config.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("demo server process", () => {
  it("starts on --port 0, prints one ready line, serves health and stops on SIGTERM", async () => {
    const demo = startDemo(["--", "--port", "0", "--host", "127.0.0.1", "--framework", "hono"]);
    const line = await demo.ready;
    const match = /^Conduit listening on http:\/\/127\.0\.0\.1:(\d+) \(framework: hono\)$/.exec(line);
    expect(match).not.toBeNull();
    const base = `http://127.0.0.1:${match?.[1]}`;
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: "ok" });
    expect((await (await fetch(`${base}/api/health`)).json()).data).toMatchObject({ status: "ok" });
    demo.child.kill("SIGTERM");
    expect(await demo.exited).toBe(0);
  });

  it("takes the framework from CONDUIT_FRAMEWORK and settings from --config", async () => {
    const config = writeConfig({ server: { basePath: "/v1", timeout: 5000 } });
    const demo = startDemo(["--port", "0", "--host", "127.0.0.1", "--config", config], { CONDUIT_FRAMEWORK: "hono" });
    const line = await demo.ready;
    const port = /:(\d+) /.exec(line)?.[1];
    expect((await fetch(`http://127.0.0.1:${port}/v1/health`)).status).toBe(200);
    demo.child.kill("SIGINT");
    expect(await demo.exited).toBe(0);
  });

  it.each([
    [{ server: { port: "eighty" } }, /server\.port/],
    [{ server: { rateLimit: { maxRequest: 5 } } }, /server\.rateLimit\.maxRequest: unknown key/],
    [{ sever: {} }, /unknown key\(s\) sever/],
    ["{not json", /not valid JSON/],
    // Settings that would silently do nothing stop the start, as in `conduit serve` (one reader).
    [
      {
        proxy: { enabled: true, clientKeys: ["demo-client-key-0123456789"], accounts: [{ id: "a", type: "api-key", apiKey: "k" }] },
        keys: { store: "memory" },
      },
      /proxy\.clientKeys cannot be used beside a "keys" section/,
    ],
    [{ admin: { keys: ["demo-admin-key-0123456789abcdefghijkl"] }, console: { sessionTtlSeconds: 1e308 } }, /console\.sessionTtlSeconds/],
  ])("exits 2 naming the problem for config %j", async (content, message) => {
    const demo = startDemo(["--port", "0", "--config", writeConfig(content)]);
    expect(await demo.exited).toBe(2);
    expect(demo.output().stderr).toMatch(message);
  });

  it("exits 2 for an unknown framework or flag", async () => {
    const framework = startDemo(["--framework", "nest"]);
    expect(await framework.exited).toBe(2);
    expect(framework.output().stderr).toMatch(/framework/);
    const flag = startDemo(["--prot", "1"]);
    expect(await flag.exited).toBe(2);
  });
});
