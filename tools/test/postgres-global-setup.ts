// vitest globalSetup: make sure a PostgreSQL answers for the tests that need one. Uses
// DATABASE_URL or 127.0.0.1:5432; when nothing answers, starts a throwaway one (initdb + pg_ctl
// in a temporary folder) on that port and removes it after the run; fails loudly (with an
// install hint) when the binaries are missing — never a silent skip.
import { createConnection } from "node:net";
import { type ThrowawayPostgres, startThrowawayPostgres } from "./throwaway-postgres.js";

function target(): { host: string; port: number } {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  return { host: url.hostname || "127.0.0.1", port: Number(url.port || 5432) };
}

/** True when something accepts TCP connections there (PostgreSQL answers the startup later). */
function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => finish(true));
  });
}

let started: ThrowawayPostgres | undefined;

export default async function setup(): Promise<() => void> {
  const { host, port } = target();
  if (!(await answers(host, port))) {
    if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`No PostgreSQL answers on ${host}:${port} (DATABASE_URL)`);
    started = await startThrowawayPostgres(port);
  }
  return () => started?.destroy();
}
