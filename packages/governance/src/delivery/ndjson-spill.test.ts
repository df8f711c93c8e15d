import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NdjsonSpill } from "./ndjson-spill.js";

const folder = mkdtempSync(join(tmpdir(), "conduit-spill-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function spillAt(name: string) {
  const warnings: string[] = [];
  const file = join(folder, name);
  return { file, warnings, spill: new NdjsonSpill<number>({ file, what: "usage", onWarning: (message) => warnings.push(message) }) };
}

/** Replays into an array; `failAfter` items taken, the next batch rejects. */
async function replayed(spill: NdjsonSpill<number>, batchSize = 2, failAfter = Number.POSITIVE_INFINITY): Promise<number[]> {
  const taken: number[] = [];
  await spill.replay(async (items) => {
    if (taken.length + items.length > failAfter) throw new Error("store away");
    taken.push(...items);
  }, batchSize);
  return taken;
}

describe("NdjsonSpill", () => {
  it("replays what was spilled in the order of the calls, in batches, and removes the file", async () => {
    const { file, spill } = spillAt("order.ndjson");
    void spill.spill([1, 2], () => undefined);
    void spill.spill([3], () => undefined);
    await spill.spill([4, 5], () => undefined);
    expect(spill.exists()).toBe(true);
    expect(await replayed(spill)).toEqual([1, 2, 3, 4, 5]);
    expect(existsSync(file)).toBe(false);
    expect(spill.exists()).toBe(false);
    expect(spill.mayHoldItems).toBe(false);
  });

  it("replays a previous process's file, and a missing file is no error", async () => {
    const { file, spill } = spillAt("previous.ndjson");
    expect(await replayed(spill)).toEqual([]);
    writeFileSync(file, "7\n8\n");
    const next = spillAt("previous.ndjson").spill;
    expect(next.exists()).toBe(true);
    expect(await replayed(next)).toEqual([7, 8]);
  });

  it("a failed replay keeps the items not taken ahead of what is spilled meanwhile", async () => {
    const { file, spill } = spillAt("failed.ndjson");
    await spill.spill([1, 2, 3, 4, 5], () => undefined);
    await expect(replayed(spill, 2, 2)).rejects.toThrow("store away");
    expect(spill.mayHoldItems).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("3\n4\n5\n");
    await spill.spill([6], () => undefined);
    expect(await replayed(spill)).toEqual([3, 4, 5, 6]);
  });

  it("skips a torn line with a warning instead of failing every later replay", async () => {
    const { file, spill, warnings } = spillAt("torn.ndjson");
    writeFileSync(file, '1\n{"id":\n2\n');
    expect(await replayed(spill)).toEqual([1, 2]);
    expect(warnings).toEqual(["governance: 1 unreadable line of the usage spill file skipped"]);
  });

  it("a replay cut short by a crash (its renamed file left behind) comes first, then the newer file", async () => {
    const { file, spill } = spillAt("crashed.ndjson");
    writeFileSync(`${file}.replaying`, "1\n2\n");
    writeFileSync(`${file}.newer`, "3\n");
    appendFileSync(file, "4\n");
    expect(spill.exists()).toBe(true);
    expect(await replayed(spill)).toEqual([1, 2, 3, 4]);
    expect(spill.exists()).toBe(false);
  });

  it("an unwritable file hands the items back with a warning; spillOrThrow rejects", async () => {
    const { spill, warnings } = spillAt("no-such-folder/unwritable.ndjson");
    const kept: number[] = [];
    await spill.spill([1, 2], (items) => kept.push(...items));
    expect(kept).toEqual([1, 2]);
    expect(warnings[0]).toMatch(/^governance: usage spill file unwritable \(.*\); 2 kept in memory$/);
    await expect(spill.spillOrThrow([3])).rejects.toThrow();
  });

  it("spillOrThrow appends after pending spills", async () => {
    const { file, spill } = spillAt("close.ndjson");
    void spill.spill([1], () => undefined);
    await spill.spillOrThrow([2, 3]);
    expect(readFileSync(file, "utf8")).toBe("1\n2\n3\n");
  });
});
