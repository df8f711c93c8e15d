#!/usr/bin/env node
// `pnpm image:check`: builds the container image from Containerfile and proves it runs as shipped.
// No registry is reachable here, so the base (`BASE_IMAGE`) is made from Debian packages
// (debootstrap --variant=minbase bookworm plus this machine's Node 20, cached under the system temp
// directory); podman builds the image on it; the image is mounted read-only and its entrypoint runs
// from that root filesystem as uid 10001, PID 1 of its own namespace (see image-check-tools.mjs).
// Checked: the image's metadata (user, entrypoint, command, port, stop signal, OCI labels, size
// ≤ 250 MB), what it leaves out, the ready line, /ready and the health probes, a proxied
// /v1/messages against a loopback fake of the Anthropic API (JSON and a stream), a token count (the
// tokenizer the build kept), and SIGTERM: a stream in flight finishes, new connections are refused,
// the process exits 0 — with nothing written outside /tmp.
//
// Usage: node --import tsx tools/scripts/image-check.mjs [--build-only]   (as root; needs podman, buildah, debootstrap)
//   --build-only: the base and the image, no checks (CI builds early, beside other steps; the check
//   later finds the layers in podman's cache and takes seconds to rebuild).
import { chmodSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic } from "../../packages/fakes/src/index.ts";
import {
  IMAGE_TAG,
  IMAGE_TOOLS,
  ROOT,
  buildImage,
  ensureBase,
  folderBytes,
  freePort,
  inspectImage,
  logger,
  mountImage,
  requireTools,
  startFromRootfs,
  uidOf,
  unmountImage,
} from "./image-check-tools.mjs";

const MAX_IMAGE_BYTES = 250_000_000;
const CLIENT_KEY = "image-check-client-key-0123456789";
const ACCOUNT_KEY = "sk-ant-image-check";
const EXPECTED_CMD = ["serve", "--host", "0.0.0.0", "--port", "8080"];
const log = logger("image-check");
const failures = [];
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

function check(condition, what) {
  if (condition) log(`ok   ${what}`);
  else {
    failures.push(what);
    log(`FAIL ${what}`);
  }
}

/** The image's recorded config, as a container runtime would read it. */
function checkMetadata(config, size) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  check(config.User === "10001:10001", `runs as uid 10001 (User ${config.User})`);
  check(same(config.Entrypoint, ["conduit"]), `ENTRYPOINT ["conduit"] (${JSON.stringify(config.Entrypoint)})`);
  check(same(config.Cmd, EXPECTED_CMD), `CMD ${JSON.stringify(EXPECTED_CMD)} (${JSON.stringify(config.Cmd)})`);
  check(config.WorkingDir === "/app", `WORKDIR /app (${config.WorkingDir})`);
  check(Object.keys(config.ExposedPorts ?? {}).includes("8080/tcp"), "EXPOSE 8080");
  check(config.StopSignal === "SIGTERM", `STOPSIGNAL SIGTERM (${config.StopSignal})`);
  const labels = config.Labels ?? {};
  for (const name of ["source", "version", "licenses"]) {
    const label = `org.opencontainers.image.${name}`;
    check(Boolean(labels[label]) && labels[label] !== "0.0.0-dev", `label ${label}=${labels[label]}`);
  }
  const spill = (config.Env ?? []).find((entry) => entry.startsWith("CONDUIT_USAGE_SPILL_FILE="));
  check(spill?.startsWith("CONDUIT_USAGE_SPILL_FILE=/tmp/"), `usage spill file under /tmp (${spill})`);
  check(size <= MAX_IMAGE_BYTES, `image ${megabytes(size)} uncompressed ≤ ${megabytes(MAX_IMAGE_BYTES)}`);
}

/** What the root filesystem holds and leaves out. */
function checkRootfs(rootfs) {
  const exists = (path) => {
    try {
      statSync(join(rootfs, path));
      return true;
    } catch {
      return false;
    }
  };
  const link = (() => {
    try {
      return readlinkSync(join(rootfs, "usr/local/bin/conduit"));
    } catch {
      return undefined;
    }
  })();
  check(exists("app/bin/conduit.mjs") && link === "/app/bin/conduit.mjs", `conduit on PATH (/usr/local/bin/conduit → ${link})`);
  check(
    !exists("usr/local/bin/npm") && !exists("usr/local/lib/node_modules") && !exists("usr/local/include"),
    "no npm, corepack or C headers",
  );
  check(
    exists("app/node_modules/@conduit-ai/server-core/package.json") && exists("app/node_modules/pg/package.json"),
    "server-core, the adapters' peers and pg installed",
  );
  const app = statSync(join(rootfs, "app"));
  check(app.uid === 0 && (app.mode & 0o022) === 0, "/app owned by root, not writable by the user");
  const leftovers = readdirSync(join(rootfs, "app/node_modules"), { recursive: true }).filter((name) =>
    /\.(map|d\.ts)$/.test(String(name)),
  );
  check(leftovers.length === 0, `no source maps or type declarations in /app (${leftovers.length})`);
}

async function readStream(response, onFirstBytes) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    if (text === "") onFirstBytes?.();
    text += decoder.decode(value, { stream: true });
  }
}

async function checkServing(rootfs, config) {
  const anthropic = await startFakeAnthropic();
  anthropic.credentials.add(ACCOUNT_KEY);
  const configDirectory = mkdtempSync(join(tmpdir(), "conduit-image-config-"));
  // Readable by uid 10001, as a mounted ConfigMap is.
  chmodSync(configDirectory, 0o755);
  writeFileSync(
    join(configDirectory, "conduit.json"),
    JSON.stringify({
      proxy: {
        enabled: true,
        upstream: { anthropic: anthropic.url },
        clientKeys: [CLIENT_KEY],
        accounts: [{ id: "claude-1", type: "api-key", apiKey: ACCOUNT_KEY }],
      },
    }),
  );
  const port = await freePort();
  // The image's own command, on a free port, with the config file mounted where docs/deploy.md puts it.
  const args = config.Cmd.map((arg, index) => (config.Cmd[index - 1] === "--port" ? String(port) : arg));
  args.push("--config", "/etc/conduit/conduit.json");
  const server = startFromRootfs({ rootfs, config, args, configDirectory });
  const base = `http://127.0.0.1:${port}`;
  try {
    const startedAt = Date.now();
    const readyLine = await Promise.race([
      server.ready,
      new Promise((_, reject) => setTimeout(() => reject(new Error("no ready line in 60 s")), 60_000)),
    ]);
    check(
      readyLine.startsWith(`Conduit listening on http://0.0.0.0:${port}`),
      `ready line after ${Date.now() - startedAt} ms: ${readyLine}`,
    );
    check(uidOf(server.pid()) === 10001, `the process runs as uid ${uidOf(server.pid())}`);
    const ready = await fetch(`${base}/ready`);
    check(ready.status === 200 && (await ready.json()).status === "ready", `/ready ${ready.status}`);
    for (const path of ["/health", "/api/health/live", "/api/health/ready"]) {
      const answer = await fetch(`${base}${path}`);
      check(answer.status === 200, `${path} ${answer.status}`);
    }
    const headers = { "x-api-key": CLIENT_KEY, "content-type": "application/json", "anthropic-version": "2023-06-01" };
    const message = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 32, messages: [{ role: "user", content: "Hi" }] }),
    });
    const body = await message.json();
    check(
      message.status === 200 && body.content?.[0]?.text?.length > 0,
      `POST /v1/messages ${message.status} through the fake: "${body.content?.[0]?.text}"`,
    );
    const idleRssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid()}/status`, "utf8"))?.[1]);
    log(`resident memory after startup and one proxied call: ${(idleRssKb / 1024).toFixed(1)} MB`);
    const count = await fetch(`${base}/v1/messages/count_tokens`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "How many tokens is this?" }] }),
    });
    const counted = await count.json();
    check(
      count.status === 200 && counted.input_tokens > 0,
      `count_tokens estimate with the kept tokenizer: ${count.status} ${JSON.stringify(counted)}`,
    );

    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid()}/status`, "utf8"))?.[1]);
    log(`resident memory after startup, a call and a token count (the tokenizer loaded): ${(rssKb / 1024).toFixed(1)} MB`);

    // SIGTERM with a stream in flight: it finishes, new connections are refused, exit 0.
    anthropic.eventGapMs = 100;
    anthropic.extraDeltas = 20;
    let firstBytes;
    const gotFirstBytes = new Promise((resolve) => (firstBytes = resolve));
    const streamed = fetch(`${base}/v1/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Hi" }] }),
    }).then((response) => readStream(response, firstBytes));
    await gotFirstBytes;
    const signalledAt = Date.now();
    server.signal("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // On a new connection (a kept-alive one would get 503 + Connection: close).
    const refused = await new Promise((resolve) => {
      const outgoing = request({ host: "127.0.0.1", port, path: "/ready", agent: false }, (response) => {
        response.resume();
        resolve(`answered ${response.statusCode}`);
      });
      outgoing.on("error", (error) => resolve(`refused (${error.code ?? error.message})`));
      outgoing.end();
    });
    const text = await streamed;
    const { code, signal } = await server.exited;
    const drainMs = Date.now() - signalledAt;
    check(text.includes("message_stop"), "the stream in flight at SIGTERM finished (message_stop)");
    check(refused.startsWith("refused"), `a new connection while draining: ${refused}`);
    check(code === 0, `exit ${code ?? signal} after SIGTERM, ${drainMs} ms`);
    const { stdout, stderr } = server.output();
    check(stderr.includes("SIGTERM received, draining"), "drain announced on stderr");
    check(!/EROFS|read-only file system/i.test(stdout + stderr), "nothing tried to write outside /tmp (no EROFS)");
    return { drainMs, rssKb };
  } finally {
    if (server.child.exitCode === null) server.signal("SIGKILL");
    await anthropic.close();
    rmSync(configDirectory, { recursive: true, force: true });
  }
}

async function main() {
  const startedAt = Date.now();
  requireTools(IMAGE_TOOLS);
  const ignoreFiles = [".containerignore", ".dockerignore"].map((name) => readFileSync(join(ROOT, name), "utf8"));
  check(ignoreFiles[0] === ignoreFiles[1], ".containerignore and .dockerignore are the same");
  const base = ensureBase(log);
  const build = buildImage(base.tag, log);
  log(`built ${IMAGE_TAG} in ${build.seconds.toFixed(1)} s (${build.cachedSteps} steps from cache)`);
  if (process.argv.includes("--build-only")) process.exit(failures.length > 0 ? 1 : 0);
  const { size, config } = inspectImage();
  checkMetadata(config, size);
  const rootfs = mountImage();
  let drainMs;
  let rssKb;
  let appBytes;
  try {
    checkRootfs(rootfs);
    appBytes = folderBytes(join(rootfs, "app"));
    ({ drainMs, rssKb } = await checkServing(rootfs, config));
  } finally {
    unmountImage();
  }
  console.log(
    `\nimage-check: ${IMAGE_TAG} ${megabytes(size)} uncompressed (/app ${megabytes(appBytes)}); base ${base.tag} (${base.origin}); ` +
      `build ${build.seconds.toFixed(1)} s; RSS ${(rssKb / 1024).toFixed(1)} MB; drain after SIGTERM ${drainMs} ms; whole check ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  );
  if (failures.length > 0) {
    console.error(`image-check: ${failures.length} failed:\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
  console.log("image-check: all checks passed");
  // Nothing left to wait for (idle keep-alive sockets of the fake and the client would hold the loop).
  process.exit(0);
}

main().catch((error) => {
  console.error(`image-check failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
