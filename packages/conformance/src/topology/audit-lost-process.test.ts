import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { conduitCommand } from "../../../../tools/test/conduit-command.js";
import { killHard, lostProcessWorld, psql } from "../fixtures/lost-process.js";
import { forEachAdapter } from "../harness.js";

/**
 * A process answers admin writes and is SIGKILLed before its audit writer's next flush. Every act
 * it answered must still reach the audit log exactly once — written by another process (the
 * server under test, on the same Redis and PostgreSQL) — and the log's hash chain must verify
 * (`conduit audit verify` exits 0). Read as an auditor reads it: `GET /admin/audit`.
 */
const ADMIN_KEY = `audit-lost-admin-${"0".repeat(24)}`;
const VIEWER_KEY = `audit-lost-viewer-${"0".repeat(24)}`;
const CHILD_SCRIPT = fileURLToPath(new URL("../fixtures/audit-child.ts", import.meta.url));

/** `conduit audit verify` on `databaseUrl`: its exit code and what it printed. */
function auditVerify(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const cli = spawn(process.execPath, [...conduitCommand(), "audit", "verify"], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  cli.stdout?.on("data", (chunk) => (output += chunk));
  cli.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => cli.once("exit", (code) => resolve({ code, output })));
}

interface AuditRow {
  seq: number;
  requestId?: string;
  action: string;
  outcome: string;
}

forEachAdapter("the audit log when a process is SIGKILLed before its flush", ({ framework, start }) => {
  const world = lostProcessWorld("audit_lost");

  it("every admin act the killed process answered has exactly one row, written by another process, and the chain verifies", async () => {
    const { process: lost, ready } = await world.startChild(CHILD_SCRIPT, [framework], { ADMIN_KEY, VIEWER_KEY }, /\{"port":(\d+)\}/);
    const port = Number(ready[1]);
    const acts: Array<{ requestId: string; action: string; outcome: string }> = [];
    let counter = 0;
    const act = async (method: string, path: string, body: unknown, expected: { status: number; action: string; outcome: string }) => {
      counter += 1;
      const requestId = `audit-act-${framework}-${counter}`;
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${expected.outcome === "denied" ? VIEWER_KEY : ADMIN_KEY}`,
          "content-type": "application/json",
          "x-request-id": requestId,
        },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { data?: { id: string } };
      expect(response.status, `${method} ${path}`).toBe(expected.status);
      acts.push({ requestId, action: expected.action, outcome: expected.outcome });
      return answer.data;
    };

    await act("POST", "/admin/teams", { id: "research", name: "Research" }, { status: 201, action: "team.create", outcome: "success" });
    const key = (await act(
      "POST",
      "/admin/keys",
      { name: "ci", team: "research" },
      { status: 201, action: "key.create", outcome: "success" },
    )) as { id: string };
    await act("PATCH", `/admin/keys/${key.id}`, { name: "ci-2" }, { status: 200, action: "key.update", outcome: "success" });
    await act("POST", `/admin/keys/${key.id}/rotate`, {}, { status: 200, action: "key.rotate", outcome: "success" });
    await act("POST", "/admin/keys", { name: "by-a-viewer" }, { status: 403, action: "key.create", outcome: "denied" });
    await act("DELETE", "/admin/teams/research", {}, { status: 409, action: "team.delete", outcome: "failure" });
    // Concurrent acts: their order in the chain is whatever the writer decides, each once.
    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        act("POST", "/admin/keys", { name: `batch-${index}` }, { status: 201, action: "key.create", outcome: "success" }),
      ),
    );
    await act("DELETE", `/admin/keys/${key.id}`, undefined, { status: 200, action: "key.revoke", outcome: "success" });
    await killHard(lost);

    const server = await world.serveSurvivor(start, { admin: { keys: [ADMIN_KEY] } });
    const logged = async () => {
      const response = await fetch(server.url("/admin/audit?limit=1000"), { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: AuditRow[] }).data.filter((row) => row.requestId?.startsWith(`audit-act-${framework}-`));
    };
    await expect.poll(async () => (await logged()).length, { timeout: 15_000, interval: 100 }).toBe(acts.length);
    // Once: more sweeps change nothing.
    await world.survivor?.sweeper?.sweep();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const rows = await logged();
    expect(rows).toHaveLength(acts.length);
    for (const each of acts)
      expect(
        rows.filter((row) => row.requestId === each.requestId).map((row) => ({ action: row.action, outcome: row.outcome })),
        each.requestId,
      ).toEqual([{ action: each.action, outcome: each.outcome }]);
    expect(
      Number(psql(world.databaseUrl, `SELECT count(*) FROM conduit_audit_events WHERE request_id LIKE 'audit-act-${framework}-%'`)),
    ).toBe(acts.length);
    const verified = await auditVerify(world.databaseUrl);
    expect(verified.output).toMatch(/audit log intact/);
    expect(verified.code).toBe(0);
  }, 60_000);
});
