import { describe, expect, it } from "vitest";
import { createTestApp } from "../../testing/test-kit.js";
import { RequestFeed, type RequestFeedEvent, annotateRequestFeed, installRequestFeed } from "./request-feed.js";

describe("request feed", () => {
  it("publishes each finished request with its route template, status, latency and annotations, never its content", async () => {
    const { adapter, request } = createTestApp({
      routes: [
        {
          method: "POST",
          path: "/chat/:id",
          handler: (ctx) => {
            annotateRequestFeed(ctx, { key: "key_1", model: "claude-x" });
            annotateRequestFeed(ctx, { inputTokens: 12, outputTokens: 3 });
            return { ok: true };
          },
        },
      ],
    });
    const feed = installRequestFeed(adapter);
    expect(installRequestFeed(adapter)).toBe(feed);
    const seen: RequestFeedEvent[] = [];
    feed.subscribe((event) => seen.push(event));
    await request({ method: "POST", url: "/api/chat/secret-id?token=query-secret-zz9", body: JSON.stringify({ prompt: "hello there" }) });
    await request({ url: "/nowhere" });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      method: "POST",
      route: "/api/chat/:id",
      status: 200,
      key: "key_1",
      model: "claude-x",
      inputTokens: 12,
    });
    expect(seen[0]?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(seen[0]?.time ?? "")).not.toBeNaN();
    expect(JSON.stringify(seen)).not.toMatch(/hello there|secret-id|query-secret-zz9/);
    expect(seen[1]).toMatchObject({ route: "unmatched", status: 404 });
  });

  it("keeps only the last `recent` events and caps subscribers", () => {
    const feed = new RequestFeed({ recent: 3, maxSubscribers: 1 });
    for (let index = 0; index < 5; index++)
      feed.publish({ time: "", requestId: String(index), method: "GET", route: "/x", status: 200, latencyMs: 1 });
    expect(feed.recent().map((event) => event.requestId)).toEqual(["2", "3", "4"]);
    const stop = feed.subscribe(() => undefined);
    expect(() => feed.subscribe(() => undefined)).toThrow(RangeError);
    stop();
    expect(feed.subscriberCount).toBe(0);
  });

  it("streams recent then live events, drops the oldest for a slow reader, and unsubscribes on abort", async () => {
    const feed = new RequestFeed({ recent: 10 });
    const event = (id: string): RequestFeedEvent => ({ time: "", requestId: id, method: "GET", route: "/x", status: 200, latencyMs: 1 });
    feed.publish(event("old"));
    const controller = new AbortController();
    const stream = feed.stream(controller.signal, 2);
    expect((await stream.next()).value?.requestId).toBe("old");
    for (const id of ["a", "b", "c", "d"]) feed.publish(event(id));
    const next = (await stream.next()).value;
    expect(next).toMatchObject({ requestId: "c", dropped: 2 });
    expect((await stream.next()).value?.requestId).toBe("d");
    const pending = stream.next();
    controller.abort();
    expect((await pending).done).toBe(true);
    expect(feed.subscriberCount).toBe(0);
  });
});
