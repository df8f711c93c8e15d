import { describe, expect, it } from "vitest";
import { createGuardrails } from "./guardrails.js";
import { scanText } from "./match-rules.js";
import type { StreamScanner } from "./stream-scanner.js";

// A delta with no hint character skips the patterns (the scanner's quiet path): these cases fail
// if it skipped a real match, a hint split across deltas or one starting in text already held.
const WINDOW = 64;
const set = createGuardrails({
  rules: [
    { name: "pii", kind: "pii", action: "mask", on: "response" },
    { name: "secrets", kind: "secrets", action: "mask", on: "response" },
  ],
  default: ["pii", "secrets"],
  window: WINDOW,
}).select();
const rules = (set as unknown as { response: { match: Parameters<typeof scanText>[0] } }).response.match;

function streamed(deltas: readonly string[], alignToDeltas: boolean): string {
  const scanner = set?.streamScanner({ alignToDeltas }) as StreamScanner;
  let sent = "";
  for (const delta of deltas) sent += scanner.push(delta).text;
  return sent + scanner.flush().text;
}

// Prose with no hint character at all: every delta of it takes the quiet path.
const prose = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ";
// A Google key whose characters after `A` include no hint character: only `A` + `Iza` together are its hint.
const googleKey = "AIzaSyDbcdefghiklmnopqrstuvyzbcdefghikm";

describe("StreamScanner: deltas without a hint character", () => {
  it.each([
    [
      "a PEM header cut after -----BEGI, the next delta holding no hint character",
      ["-----BEGI", "N OPENSSH PRIV", "ATE KEY-----\nbody\n-----END OPENSSH PRIVATE KEY-----"],
    ],
    ["a Google key cut after its A", [`key ${googleKey.slice(0, 1)}`, `${googleKey.slice(1)} end`]],
    ["an AWS secret key named across deltas (aw|s)", ["the aw", 's secret is "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" ok']],
    ["an email whose local part is already held when the @ arrives", ["mail grace.hopper", "@example.com now"]],
  ])("masks %s, after prose that went out unscanned", (_, parts) => {
    const text = `${prose.repeat(3)}${parts.join("")} ${prose}`;
    const expected = scanText(rules, text, "response").text;
    expect(expected).not.toBe(text);
    for (const alignToDeltas of [false, true]) {
      expect(streamed([prose, prose, prose, ...parts, ` ${prose}`], alignToDeltas), `aligned ${alignToDeltas}`).toBe(expected);
      // The same text one character per delta: every split of every hint.
      expect(streamed([...text], alignToDeltas), `aligned ${alignToDeltas}, by characters`).toBe(expected);
    }
  });

  it("finds a hint whose hint character came just before the delta, at every distance the overlap covers", () => {
    // `A` then quiet characters: the key's hint (`AIza`) is only whole once the next delta comes.
    const text = `${prose}${googleKey} ${prose}`;
    expect(scanText(rules, text, "response").text).toBe(`${prose}[GOOGLE_API_KEY] ${prose}`);
    for (let split = 1; split < googleKey.length; split++)
      for (const alignToDeltas of [false, true]) {
        const deltas = [prose, googleKey.slice(0, split), `${googleKey.slice(split)} `, prose];
        expect(streamed(deltas, alignToDeltas), `split at ${split}`).toBe(`${prose}[GOOGLE_API_KEY] ${prose}`);
      }
  });

  it("finds a hint that starts in the last delta scanned before a detector went quiet again", () => {
    // The digit arms the card and phone detectors; they disarm once it leaves the window, in
    // whichever delta that is. Moving that delta shows the tail left after it is tested too.
    for (let filler = 0; filler < 160; filler += 3)
      for (const alignToDeltas of [false, true]) {
        const deltas = [prose, "call 5 ", "o".repeat(filler), " then A", `${googleKey.slice(1)} done`];
        expect(streamed(deltas, alignToDeltas), `filler ${filler}`).toContain("[GOOGLE_API_KEY] done");
      }
  });

  it("matches the whole-text scan for random texts split at random points", () => {
    const samples = [
      "AKIAIOSFODNN7EXAMPLE",
      "grace.hopper@example.com",
      "4111 1111 1111 1111",
      "DE89 3704 0044 0532 0130 00",
      "+44 20 7946 0958",
      "415-555-2671",
      "192.168.1.20",
      "123-45-6789",
      `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`,
      "glpat-xYz12345678901234567",
      googleKey,
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N",
    ];
    const words = ["lorem", "ipsum", "dolor", "sit", "amet,", "elit", "tempor", "magna", "aliqua."];
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % below;
    };
    for (let trial = 0; trial < 150; trial++) {
      const parts: string[] = [];
      for (let count = 5 + random(40); count > 0; count--)
        parts.push(random(6) === 0 ? (samples[random(samples.length)] as string) : (words[random(words.length)] as string));
      const text = parts.join(" ");
      const deltas: string[] = [];
      for (let start = 0; start < text.length; ) {
        const size = 1 + random(random(2) === 0 ? 8 : 90);
        deltas.push(text.slice(start, start + size));
        start += size;
      }
      const expected = scanText(rules, text, "response").text;
      for (const alignToDeltas of [false, true])
        expect(streamed(deltas, alignToDeltas), `${JSON.stringify(deltas)} aligned ${alignToDeltas}`).toBe(expected);
    }
  });
});
