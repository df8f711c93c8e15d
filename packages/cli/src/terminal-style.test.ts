import { describe, expect, it } from "vitest";
import { terminalStyle } from "./terminal-style.js";

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return { stream: { isTTY, write: (text: string) => written.push(text) > 0 }, written };
}

describe("terminalStyle", () => {
  it("colours and shows progress on a TTY", () => {
    const { stream, written } = fakeStream(true);
    const style = terminalStyle(stream, {});
    expect(style.red("x")).toBe("\u001b[31mx\u001b[39m");
    const stop = style.progress("Working");
    stop();
    expect(written[0]).toContain("Working");
    expect(written.at(-1)).toBe("\r\u001b[K");
  });

  it.each([
    ["not a TTY", false, {}, {}],
    ["NO_COLOR", true, { NO_COLOR: "1" }, {}],
    ["--json", true, {}, { json: true }],
  ])("plain text and no progress when %s", (_case, isTTY, env, options) => {
    const { stream, written } = fakeStream(isTTY);
    const style = terminalStyle(stream, env, options);
    expect(style.enabled).toBe(false);
    expect(style.bold("x")).toBe("x");
    style.progress("Working")();
    expect(written).toEqual([]);
  });
});
