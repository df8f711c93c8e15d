// A throwaway PostgreSQL for tests: `initdb` + `pg_ctl` in a temporary folder on a loopback
// port, trust auth, user `postgres`. Stopped and started at will (outage tests), removed at the
// end. As root, the server runs as the `postgres` user (PostgreSQL refuses to run as root).
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ThrowawayPostgres {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  destroy(): void;
}

function asPostgresUser(command: string, args: string[]): { status: number | null; stderr: string; error?: Error } {
  const isRoot = process.getuid?.() === 0;
  const result = isRoot
    ? spawnSync("runuser", ["-u", "postgres", "--", command, ...args], { encoding: "utf8" })
    : spawnSync(command, args, { encoding: "utf8" });
  return {
    status: result.status,
    stderr: `${result.stderr ?? ""}${result.stdout ?? ""}`,
    ...(result.error ? { error: result.error } : {}),
  };
}

/** A free loopback port (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * Creates and starts a PostgreSQL cluster on `port` (default: a free one). Throws with an install
 * hint when the binaries are missing — never a silent skip.
 */
export async function startThrowawayPostgres(port?: number): Promise<ThrowawayPostgres> {
  const chosen = port ?? (await freePort());
  const folder = mkdtempSync(join(tmpdir(), "conduit-pg-"));
  const data = join(folder, "data");
  if (process.getuid?.() === 0) {
    chmodSync(folder, 0o755);
    const user = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const group = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(folder, Number(user.stdout.trim()), Number(group.stdout.trim()));
  }
  const init = asPostgresUser("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  if (init.error || init.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(
      `Cannot create a throwaway PostgreSQL (initdb): ${init.error?.message ?? init.stderr}. Install it (Debian: apt-get install -y postgresql) or set DATABASE_URL.`,
    );
  }
  const options = `-c listen_addresses=127.0.0.1 -p ${chosen} -c unix_socket_directories=${folder} -c fsync=off -c full_page_writes=off`;
  const control = (action: "start" | "stop") => {
    const args =
      action === "start" ? ["-D", data, "-o", options, "-l", join(folder, "log"), "-w", "start"] : ["-D", data, "-m", "fast", "-w", "stop"];
    const result = asPostgresUser("pg_ctl", args);
    if (result.status !== 0) throw new Error(`pg_ctl ${action} failed: ${result.stderr}`);
  };
  control("start");
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${chosen}/postgres`,
    port: chosen,
    stop() {
      if (running) control("stop");
      running = false;
    },
    start() {
      if (!running) control("start");
      running = true;
    },
    destroy() {
      try {
        if (running) control("stop");
      } finally {
        running = false;
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
