import { describe, expect, it } from "vitest";
import { GENESIS_HASH, canonicalJson, chained, verifyChain } from "./audit-chain.js";
import type { AuditEvent, StoredAuditEvent } from "./audit-event.js";

function event(index: number): AuditEvent {
  return {
    id: `event-${index}`,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    actor: { kind: "admin-key", id: "ak_000000000000", hint: "abcd" },
    role: "admin",
    action: "key.update",
    target: { type: "key", id: `key_${index}` },
    after: { name: `name ${index}`, limits: { rpm: index } },
    outcome: "success",
  };
}

function chain(length: number): StoredAuditEvent[] {
  const rows: StoredAuditEvent[] = [];
  for (let index = 1; index <= length; index += 1) rows.push(chained(event(index), rows.at(-1)));
  return rows;
}

describe("the audit hash chain", () => {
  it("an untouched chain verifies; the first row's prevHash is 64 zeros", () => {
    const rows = chain(5);
    expect(rows[0]?.prevHash).toBe(GENESIS_HASH);
    expect(verifyChain(rows)).toEqual({ checked: 5 });
  });

  it("names the first edited row", () => {
    const rows = chain(5);
    (rows[2] as StoredAuditEvent).after = { name: "edited", limits: { rpm: 3 } };
    expect(verifyChain(rows).broken).toMatchObject({ seq: 3, id: "event-3", reason: expect.stringContaining("edited") });
  });

  it("names the row after a deleted one", () => {
    const rows = chain(5);
    rows.splice(1, 1);
    expect(verifyChain(rows).broken).toMatchObject({ seq: 3, id: "event-3" });
  });

  it("names the first of two swapped rows, even with their seq numbers swapped back", () => {
    const rows = chain(5);
    const [second, third] = [rows[1] as StoredAuditEvent, rows[2] as StoredAuditEvent];
    rows[1] = { ...third, seq: 2 };
    rows[2] = { ...second, seq: 3 };
    expect(verifyChain(rows).broken).toMatchObject({ seq: 2, id: "event-3" });
  });

  it("verifies from a row onwards given the row before it", () => {
    const rows = chain(6);
    expect(verifyChain(rows.slice(3), rows[2])).toEqual({ checked: 3 });
  });

  it("canonical JSON does not depend on key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
  });
});
