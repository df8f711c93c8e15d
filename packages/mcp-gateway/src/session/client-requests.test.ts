import { describe, expect, it } from "vitest";
import { ClientRequests } from "./client-requests.js";

/** A route that records what it carries (a stream the client reads). */
function recordingRoute(open = true) {
  const sent: Array<Record<string, unknown>> = [];
  return { sent, route: (message: string) => open && sent.push(JSON.parse(message)) > 0 };
}

describe("requests of a server to the client", () => {
  it("goes out on the first route that takes it, with an id of its own, and resolves with the client's result", async () => {
    const requests = new ClientRequests(5_000);
    const closed = recordingRoute(false);
    const open = recordingRoute();
    const asked = requests.ask("roots/list", undefined, [closed.route, open.route], new AbortController().signal);
    expect(closed.sent).toEqual([]);
    const [request] = open.sent as Array<{ id: string; method: string }>;
    expect(request).toMatchObject({ jsonrpc: "2.0", method: "roots/list", id: expect.stringMatching(/^conduit-[0-9a-f]{12}-1$/) });
    expect(requests.settle({ id: "conduit-unknown-1", result: {} })).toBe(false);
    expect(requests.settle({ id: request?.id as string, result: { roots: [] } })).toBe(true);
    await expect(asked).resolves.toEqual({ roots: [] });
    // Settled once: a second answer is not this process's.
    expect(requests.settle({ id: request?.id as string, result: {} })).toBe(false);
  });

  it("the client's error goes back as the server's error, code kept", async () => {
    const requests = new ClientRequests(5_000);
    const { sent, route } = recordingRoute();
    const asked = requests.ask("sampling/createMessage", { maxTokens: 1, messages: [] }, [route], new AbortController().signal);
    requests.settle({ id: sent[0]?.id as string, error: { code: -1, message: "User rejected sampling request" } });
    await expect(asked).rejects.toMatchObject({ code: -1, message: expect.stringContaining("User rejected sampling request") });
  });

  it("no route takes it: refused at once with -32603 naming the method", async () => {
    const requests = new ClientRequests(5_000);
    await expect(requests.ask("elicitation/create", {}, [recordingRoute(false).route], new AbortController().signal)).rejects.toMatchObject(
      { code: -32603, message: expect.stringContaining("no open stream to receive elicitation/create") },
    );
  });

  it("the server gives up: the client is told notifications/cancelled and the request fails", async () => {
    const requests = new ClientRequests(5_000);
    const { sent, route } = recordingRoute();
    const controller = new AbortController();
    const asked = requests.ask("elicitation/create", {}, [route], controller.signal);
    controller.abort();
    await expect(asked).rejects.toMatchObject({ message: expect.stringContaining("elicitation/create was cancelled") });
    expect(sent[1]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: sent[0]?.id, reason: "the MCP server cancelled its request" },
    });
  });

  it("the client never answers: it fails after the timeout; closing the session fails what still waits", async () => {
    const requests = new ClientRequests(50);
    const { route } = recordingRoute();
    await expect(requests.ask("roots/list", undefined, [route], new AbortController().signal)).rejects.toMatchObject({
      code: -32001,
      message: expect.stringContaining("did not answer roots/list within 50 ms"),
    });
    const waiting = new ClientRequests(60_000);
    const asked = waiting.ask("roots/list", undefined, [route], new AbortController().signal);
    waiting.close();
    await expect(asked).rejects.toMatchObject({ message: expect.stringContaining("The session closed") });
  });
});
