import { describe, expect, it } from "vitest";
import { adminKeyId, createAdminCheck } from "./admin-check.js";

const ADMIN = "unit-admin-key-0123456789abcdefghijklmnopq";
const VIEWER = "unit-viewer-key-0123456789abcdefghijklmnop";

const bearer = (key: string) => (name: string) => (name === "authorization" ? `Bearer ${key}` : undefined);
const user = (roles: string[]) => ({ id: "u1", roles, permissions: [], email: "u1@example.com" });

describe("createAdminCheck: who is calling the admin API, and as what", () => {
  it("an admin key is its role (a bare string: admin), named by an id and its last 4 characters, never the key", () => {
    const check = createAdminCheck({ keys: [ADMIN, { key: VIEWER, role: "viewer" }] });
    expect(check.identify({ header: bearer(ADMIN), user: undefined })).toEqual({
      kind: "admin-key",
      id: adminKeyId(ADMIN),
      hint: ADMIN.slice(-4),
      role: "admin",
    });
    expect(check.identify({ header: bearer(VIEWER), user: undefined })).toMatchObject({ role: "viewer" });
    expect(check({ header: bearer(VIEWER), user: undefined })).toBe("admin");
    expect(check.identify({ header: bearer(`${ADMIN}x`), user: undefined })).toBe("unauthenticated");
  });

  it("a user of the server's auth has the strongest admin-API role among theirs; none is forbidden; roles [] trusts the server's auth with none", () => {
    const check = createAdminCheck({ keys: [] });
    expect(check.identify({ header: () => undefined, user: user(["viewer", "team-admin:alpha"]) })).toEqual({
      kind: "user",
      id: "u1",
      hint: "u1@example.com",
      role: "team-admin:alpha",
    });
    expect(check.identify({ header: () => undefined, user: user(["auditor", "admin"]) })).toMatchObject({ role: "admin" });
    expect(check.identify({ header: () => undefined, user: user(["developer"]) })).toBe("forbidden");
    expect(check.identify({ header: () => undefined, user: user(["team-admin:../x"]) })).toBe("forbidden");
    const closed = createAdminCheck({ keys: [], roles: [] });
    expect(closed.identify({ header: () => undefined, user: user(["admin", "viewer"]) })).toBe("forbidden");
    const custom = createAdminCheck({ keys: [], roles: ["ops"] });
    expect(custom.identify({ header: () => undefined, user: user(["ops"]) })).toMatchObject({ role: "admin" });
    expect(custom.identify({ header: () => undefined, user: user(["admin"]) })).toBe("forbidden");
  });

  it("a delegated stand-in is its principal until released, and nothing after", () => {
    const check = createAdminCheck({ keys: [ADMIN] });
    const principal = { kind: "user" as const, id: "sso-user", hint: "a@example.com", role: "viewer" as const };
    const stand = check.delegate(principal);
    expect(stand.token).toMatch(/^cdlg_[A-Za-z0-9_-]{43}$/);
    expect(check.identify({ header: bearer(stand.token), user: undefined })).toEqual(principal);
    stand.release();
    expect(check.identify({ header: bearer(stand.token), user: undefined })).toBe("unauthenticated");
    expect(check.identify({ header: bearer("cdlg_forged"), user: undefined })).toBe("unauthenticated");
    expect(check.allows("viewer", "keys.write")).toBe(false);
    expect(check.allows("team-admin:alpha", "keys.write")).toBe(true);
    expect(check.allows("owner", "keys.read")).toBe(false);
  });
});
