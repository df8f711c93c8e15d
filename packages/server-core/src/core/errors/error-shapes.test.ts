import { describe, expect, it } from "vitest";
import { AuthenticationError } from "../../errors/server-errors.js";
import { createTestApp } from "../../testing/test-kit.js";

function appWithShapes() {
  const { adapter, request } = createTestApp();
  adapter.registerRouteGroup({
    prefix: "",
    routes: [
      {
        method: "POST",
        path: "/v1/things",
        absolute: true,
        handler: () => {
          throw new AuthenticationError("who are you");
        },
      },
    ],
    errorShapes: [
      { pathPrefix: "/v1/", write: (error) => ({ status: error.statusCode, body: JSON.stringify({ outer: error.message }) }) },
      {
        pathPrefix: "/v1/special",
        write: (error, request) => ({
          status: error.statusCode,
          headers: { "X-Shape": "special" },
          body: JSON.stringify({ special: request.path }),
        }),
      },
      {
        pathPrefix: "/v1/broken",
        write: () => {
          throw new Error("writer bug");
        },
      },
    ],
  });
  return request;
}

describe("error shapes (a surface writes Conduit's own errors on its paths)", () => {
  it("a thrown error on a claimed path leaves in the surface's shape, same status, request id kept", async () => {
    const response = await appWithShapes()({ method: "POST", url: "/v1/things", body: "{}" });
    expect(response.status).toBe(401);
    expect(response.json()).toEqual({ outer: "who are you" });
    expect(response.headers["x-request-id"]).toEqual(expect.any(String));
    expect(response.headers["content-type"]).toContain("application/json");
  });

  it("unknown routes under a prefix use it; the longest prefix wins; other paths keep the envelope", async () => {
    const request = appWithShapes();
    const special = await request({ url: "/v1/special/x" });
    expect(special.status).toBe(404);
    expect(special.headers["x-shape"]).toBe("special");
    expect(special.json()).toEqual({ special: "/v1/special/x" });
    expect((await request({ url: "/v1/other" })).json()).toMatchObject({ outer: expect.stringContaining("/v1/other") });
    expect((await request({ url: "/elsewhere" })).json()).toMatchObject({ error: { code: "ROUTE_NOT_FOUND" } });
  });

  it("a writer that throws leaves the envelope in place, never a crash", async () => {
    const response = await appWithShapes()({ url: "/v1/broken" });
    expect(response.status).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: "ROUTE_NOT_FOUND" } });
  });

  it("refuses a shape without an absolute prefix", () => {
    const { adapter } = createTestApp();
    expect(() =>
      adapter.registerRouteGroup({ prefix: "", routes: [], errorShapes: [{ pathPrefix: "v1", write: () => ({ status: 400, body: "" }) }] }),
    ).toThrow(/absolute pathPrefix/);
  });
});
