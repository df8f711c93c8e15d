// vitest globalSetup: make sure a Redis answers for the tests that need one. Uses REDIS_URL
// or 127.0.0.1:6379; starts `redis-server` when nothing answers; fails loudly (with an
// install hint) when the binary is missing — never a silent skip.
import { spawnSync } from "node:child_process";
import { createConnection } from "node:net";

function target(): { host: string; port: number } {
  const url = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  return { host: url.hostname || "127.0.0.1", port: Number(url.port || 6379) };
}

function ping(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => finish(data.toString().startsWith("+PONG")));
  });
}

export default async function setup(): Promise<void> {
  const { host, port } = target();
  if (await ping(host, port)) return;
  const started = spawnSync(
    "redis-server",
    ["--daemonize", "yes", "--bind", host, "--port", String(port), "--save", "", "--appendonly", "no"],
    {
      encoding: "utf8",
    },
  );
  if (started.error) {
    throw new Error(
      `No Redis answers on ${host}:${port} and redis-server is not installed. Install it (Debian: apt-get install -y redis-server) or set REDIS_URL.`,
    );
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await ping(host, port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Started redis-server but ${host}:${port} does not answer: ${started.stderr}`);
}
