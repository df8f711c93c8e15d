import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { conduitCommand } from "../../../../tools/test/conduit-command.js";

const hasScript = spawnSync("script", ["--version"]).status === 0;
const ESCAPE = "\u001b[";

/** Runs `conduit <args>` on a pseudo-terminal (util-linux `script`), so stdout and stderr are TTYs. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; output: string } {
  const { FORCE_COLOR: _forced, NO_COLOR: _noColor, ...inherited } = process.env;
  const command = [process.execPath, ...conduitCommand(), ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  const result = spawnSync("script", ["-qec", command, "/dev/null"], {
    env: { ...inherited, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", REDIS_URL: "", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, output: result.stdout };
}

// Without util-linux `script` there is no pseudo-terminal to run on; terminal-style.test.ts still covers the rules.
describe.skipIf(!hasScript)("colour and progress on a terminal", { timeout: 90_000 }, () => {
  it("generate shows a spinner and a dim summary on a TTY", () => {
    const { status, output } = onTerminal(["generate", "--input", "hi"]);
    expect(status).toBe(0);
    expect(output).toContain("Generating…");
    expect(output).toContain(`${ESCAPE}2mlocal/echo`);
    expect(output).toContain('you said "hi"');
  });

  it("NO_COLOR and --json turn colour and progress off even on a TTY", () => {
    for (const [args, env] of [
      [["generate", "--input", "hi"], { NO_COLOR: "1" }],
      [["generate", "--input", "hi", "--json"], {}],
    ] as const) {
      const { status, output } = onTerminal([...args], env);
      expect(status).toBe(0);
      expect(output).not.toContain(ESCAPE);
      expect(output).not.toContain("Generating");
    }
  });

  it("routes prints a bold header on a TTY, and errors are red", () => {
    expect(onTerminal(["routes"]).output).toMatch(new RegExp(`^${ESCAPE.replace("[", "\\[")}1mMETHOD`));
    const failed = onTerminal(["routes", "--bogus"]);
    expect(failed.status).toBe(2);
    expect(failed.output).toContain(`${ESCAPE}31mUnknown option '--bogus'`);
  });
});
