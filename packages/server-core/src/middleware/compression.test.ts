import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { rawResponse } from "../core/pipeline/raw-response.js";
import { createCompressionMiddleware, negotiateEncoding } from "./compression.js";
import { createTestApp } from "../testing/test-kit.js";

const large = "x".repeat(5000);
const routes = [
  { method: "GET" as const, path: "/large", handler: () => ({ text: large }) },
  { method: "GET" as const, path: "/small", handler: () => "tiny" },
  {
    method: "GET" as const,
    path: "/stream",
    handler: async function* () {
      yield { type: "text-delta", data: large };
    },
  },
  { method: "GET" as const, path: "/binary", handler: () => rawResponse(Buffer.alloc(4000), { headers: { "content-type": "image/png" } }) },
];

describe("compression middleware", () => {
  it.each([
    ["gzip", gunzipSync],
    ["deflate", inflateSync],
    ["br", brotliDecompressSync],
  ] as const)("compresses large JSON with %s", async (encoding, decompress) => {
    const { request } = createTestApp({ middleware: [createCompressionMiddleware()], routes });
    const response = await request({ url: "/api/large", headers: { "accept-encoding": encoding } });
    expect(response.headers["content-encoding"]).toBe(encoding);
    expect(response.headers.vary).toBe("Accept-Encoding");
    expect(response.headers["content-length"]).toBeUndefined();
    expect(response.bytes.length).toBeLessThan(1000);
    expect(JSON.parse(decompress(response.bytes).toString()).data.text).toBe(large);
  });

  it("leaves small bodies, unacceptable encodings, binary types and streams alone", async () => {
    const { request } = createTestApp({ middleware: [createCompressionMiddleware()], routes });
    const small = await request({ url: "/api/small", headers: { "accept-encoding": "gzip" } });
    expect(small.headers["content-encoding"]).toBeUndefined();
    // Sent as is whatever the client accepts: it does not vary.
    expect(small.headers.vary).toBeUndefined();
    const refused = await request({ url: "/api/large", headers: { "accept-encoding": "gzip;q=0, identity" } });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    // Another client would have got it compressed: caches must key it by Accept-Encoding.
    expect(refused.headers.vary).toBe("Accept-Encoding");
    expect(refused.json<{ data: { text: string } }>().data.text).toBe(large);
    const binary = await request({ url: "/api/binary", headers: { "accept-encoding": "gzip" } });
    expect(binary.headers["content-encoding"]).toBeUndefined();
    const stream = await request({ url: "/api/stream", headers: { "accept-encoding": "gzip, br", accept: "text/event-stream" } });
    expect(stream.streaming).toBe(true);
    expect(stream.headers["content-encoding"]).toBeUndefined();
    expect(stream.text).toContain("text-delta");
  });

  it("judges the threshold by bytes, not characters", async () => {
    // 300 characters of 3 bytes each: 900 bytes in all, plus the envelope.
    const euros = "€".repeat(300);
    const { request } = createTestApp({
      middleware: [createCompressionMiddleware({ threshold: 800 })],
      routes: [{ method: "GET" as const, path: "/euros", handler: () => euros }],
    });
    const response = await request({ url: "/api/euros", headers: { "accept-encoding": "gzip" } });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(response.bytes).toString()).data).toBe(euros);
  });

  it("negotiates by q-value with the server's preference on ties", () => {
    expect(negotiateEncoding("gzip, deflate, br", ["br", "gzip", "deflate"])).toBe("br");
    expect(negotiateEncoding("gzip;q=1, br;q=0.5", ["br", "gzip"])).toBe("gzip");
    expect(negotiateEncoding("*", ["gzip"])).toBe("gzip");
    expect(negotiateEncoding("identity", ["gzip"])).toBeUndefined();
    expect(negotiateEncoding(undefined, ["gzip"])).toBeUndefined();
  });
});
