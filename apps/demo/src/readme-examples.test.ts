import { type ChildProcess, execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, stopProcess } from "./testing/demo-server.js";

const run = promisify(execFile);
const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");

/** The curl commands of the README's "Try it" and "AI workflows" blocks, continuation lines joined. */
function curlExamples(): Array<{ command: string; expectedStatus: number }> {
  const blocks = ["## Try it", "## AI workflows"].map(
    (heading) => readme.slice(readme.indexOf(heading)).split("```sh")[1]?.split("```")[0] ?? "",
  );
  const commands = blocks
    .join("\n")
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((line) => line.startsWith("curl "));
  return commands.map((line) => {
    const expected = /# (\d{3})\b/.exec(line)?.[1];
    return { command: line.replace(/\s+#.*$/, ""), expectedStatus: expected ? Number(expected) : 200 };
  });
}

describe("apps/demo/README.md curl examples", () => {
  let port = 0;
  let child: ChildProcess;

  beforeAll(async () => {
    ({ child, port } = await startDemoServer([], {
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      ANTHROPIC_API_KEY: "",
      ANTHROPIC_BASE_URL: "",
      REDIS_URL: "",
    }));
  });

  afterAll(async () => {
    await stopProcess(child);
  });

  const examples = curlExamples();

  it("finds the examples", () => {
    expect(examples.length).toBeGreaterThan(20);
  });

  it.each(examples)("$command → $expectedStatus", async ({ command, expectedStatus }) => {
    const withPort = command.replaceAll("localhost:3000", `127.0.0.1:${port}`);
    const { stdout } = await run("sh", ["-c", `${withPort} -o /dev/null -w '%{http_code}' --max-time 10`]);
    expect(Number(stdout.trim())).toBe(expectedStatus);
  });
});
