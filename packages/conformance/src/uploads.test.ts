import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachAdapter } from "./harness.js";
import { rawExchange } from "./raw-socket.js";

const run = promisify(execFile);
const uploadClient = fileURLToPath(new URL("./fixtures/upload-client.mjs", import.meta.url));

/** The client: undici's fetch in a separate process, `attempts` uploads of 11 MB in a row. */
async function fetchFromAnotherProcess(url: string, attempts: number, mode: "declared" | "streamed"): Promise<string[]> {
  const { stdout } = await run(process.execPath, [uploadClient, url, String(attempts), mode], { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout) as string[];
}
const MB = 1024 * 1024;
/** 11 MB against the default 10 MB limit, as a user reported it. */
const OVERSIZED = Buffer.alloc(11 * MB, "a");
const ATTEMPTS = 8;

let directory = "";
let oversizedFile = "";
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "conduit-uploads-"));
  oversizedFile = join(directory, "oversized.json");
  await writeFile(oversizedFile, OVERSIZED);
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "POST", path: "/upload", handler: (ctx) => ({ bytes: JSON.stringify(ctx.body ?? null).length }) });
  adapter.registerRoute({ method: "GET", path: "/ok", handler: () => ({ ok: true }) });
}

function expect413(status: number, text: string): void {
  expect(status).toBe(413);
  const body = JSON.parse(text);
  expect(body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: 10 * MB } });
}

forEachAdapter("oversized uploads see the 413", ({ start }) => {
  it("fetch (another process) with a declared length gets the 413 envelope every time, never EPIPE", async () => {
    const server = await start({ setup: registerRoutes });
    const results = await fetchFromAnotherProcess(server.url("/api/upload"), ATTEMPTS, "declared");
    expect(results).toEqual(Array.from({ length: ATTEMPTS }, () => "413:PAYLOAD_TOO_LARGE:close"));
    expect((await fetch(server.url("/api/ok"))).status).toBe(200);
  });

  it("fetch (another process) with a streamed (chunked) body gets the 413 once the limit is crossed", async () => {
    const server = await start({ setup: registerRoutes });
    const results = await fetchFromAnotherProcess(server.url("/api/upload"), ATTEMPTS / 2, "streamed");
    expect(results).toEqual(Array.from({ length: ATTEMPTS / 2 }, () => "413:PAYLOAD_TOO_LARGE:close"));
  });

  it("fetch in this process gets the 413 envelope too", async () => {
    const server = await start({ setup: registerRoutes });
    const response = await fetch(server.url("/api/upload"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: OVERSIZED,
    });
    expect(response.headers.get("connection")).toBe("close");
    expect413(response.status, await response.text());
  });

  it("curl (which sends Expect: 100-continue) gets the 413 envelope", async () => {
    const server = await start({ setup: registerRoutes });
    for (let attempt = 0; attempt < ATTEMPTS / 2; attempt++) {
      const { stdout } = await run("curl", [
        "-sS",
        "-X",
        "POST",
        "-H",
        "content-type: application/json",
        "--data-binary",
        `@${oversizedFile}`,
        "-w",
        "\n%{http_code}",
        server.url("/api/upload"),
      ]);
      const lines = stdout.trimEnd().split("\n");
      const status = Number(lines.pop());
      expect413(status, lines.join("\n"));
    }
  });

  it("a raw client still writing its body reads the 413, then the server closes without a reset", async () => {
    const server = await start({ setup: registerRoutes });
    const head = `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${OVERSIZED.byteLength}\r\n\r\n`;
    const chunks = Array.from({ length: 11 }, (_, index) => OVERSIZED.subarray(index * MB, (index + 1) * MB));
    const answer = await rawExchange(server.port, head, { body: chunks, waitForClose: true });
    expect(answer.error).toBeUndefined();
    expect(answer.closed).toBe(true);
    expect(answer.headers.connection).toBe("close");
    expect413(answer.status, answer.body);
  });

  it("stops discarding after bodyParser.lingerLimit bytes", async () => {
    const server = await start({ setup: registerRoutes, config: { bodyParser: { limit: 1024, lingerLimit: 64 * 1024 } } });
    const head = `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${OVERSIZED.byteLength}\r\n\r\n`;
    const chunks = Array.from({ length: 11 }, (_, index) => OVERSIZED.subarray(index * MB, (index + 1) * MB));
    const answer = await rawExchange(server.port, head, { body: chunks, waitForClose: true });
    expect(answer.status).toBe(413);
    // The server gave up well before 11 MB: the client's remaining writes met a closed socket.
    expect(answer.closed).toBe(true);
  });
});
