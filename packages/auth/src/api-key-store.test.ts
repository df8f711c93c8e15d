import { describe, expect, it } from "vitest";
import { ApiKeyStore } from "./api-key-store.js";

describe("ApiKeyStore", () => {
  it("adds, validates, removes and clears keys", () => {
    const store = new ApiKeyStore();
    store.addKey("key-one", { id: "one", roles: ["admin"] }).addKey("key-two", { id: "two" });
    expect(store.size).toBe(2);
    expect(store.validate("key-one")).toEqual({ id: "one", roles: ["admin"], permissions: [] });
    expect(store.validate("key-on")).toBeNull();
    expect(store.validate("")).toBeNull();
    expect(store.removeKey("key-one")).toBe(true);
    expect(store.removeKey("key-one")).toBe(false);
    expect(store.validate("key-one")).toBeNull();
    store.clear();
    expect(store.size).toBe(0);
    expect(store.validate("key-two")).toBeNull();
  });

  it("replaces the user of a re-added key", () => {
    const store = new ApiKeyStore().addKey("k", { id: "old" }).addKey("k", { id: "new" });
    expect(store.size).toBe(1);
    expect(store.validate("k")?.id).toBe("new");
  });

  it("keeps no plaintext key and hands out copies", () => {
    const store = new ApiKeyStore().addKey("super-secret-key", { id: "u", roles: ["r"] });
    expect(JSON.stringify(store)).not.toContain("super-secret-key");
    const first = store.validate("super-secret-key");
    first?.roles.push("admin");
    expect(store.validate("super-secret-key")?.roles).toEqual(["r"]);
    const withMetadata = new ApiKeyStore().addKey("k2", { id: "m", metadata: { plan: { tier: "pro" } } });
    const copy = withMetadata.validate("k2");
    (copy?.metadata?.plan as { tier: string }).tier = "free";
    copy?.permissions.push("*");
    expect(withMetadata.validate("k2")).toMatchObject({ metadata: { plan: { tier: "pro" } }, permissions: [] });
  });

  it("rejects empty keys and users without an id", () => {
    const store = new ApiKeyStore();
    expect(() => store.addKey("", { id: "u" })).toThrow(TypeError);
    expect(() => store.addKey("k", { id: "" })).toThrow(TypeError);
  });
});
