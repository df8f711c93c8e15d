import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { mcpTestBed } from "./fixtures/mcp-gateway-bed.js";
import { connectClient, eventually, everythingStdio, gatewayOf, stdioFixture } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// Requests an upstream server makes of the client mid-call — sampling, elicitation, roots — reach
// the official SDK client connected to the gateway (on the call's SSE answer) and its answers go
// back to the server; only what the client declared is declared upstream.
const CLIENT_KEY = "mcp-client-requests-key-0123456789";
const SERVERS = ["local", "web"] as const;
const text = (result: unknown) => ((result as { content: Array<{ text?: string }> }).content[0]?.text ?? "") as string;

/** An SSE answer read as it comes: its first message, then the whole text once it ends. */
function sseOf(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let received = "";
  return {
    async first(): Promise<{ id: string; method: string }> {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        received += decoder.decode(chunk.value, { stream: true });
        if (received.includes("\n\n")) break;
      }
      return JSON.parse(received.slice(received.indexOf("data: ") + 6, received.indexOf("\n\n")));
    },
    async all(): Promise<string> {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        received += decoder.decode(chunk.value, { stream: true });
      return received;
    },
  };
}

forEachAdapter("mcp gateway: server-to-client requests", ({ start }) => {
  const bed = mcpTestBed({ governance: false });

  async function serve() {
    const gateway = gatewayOf(
      { servers: { local: stdioFixture().config, web: { url: bed.web.url }, everything: everythingStdio }, clientKeys: [CLIENT_KEY] },
      bed.gateways,
    );
    const server = await start({ setup: (adapter) => gateway.install(adapter) });
    const connect = async (capabilities: ClientCapabilities) => {
      const connected = await connectClient(server.url("/mcp"), CLIENT_KEY, { capabilities });
      bed.clients.push(connected.client);
      return connected;
    };
    return { server, connect };
  }

  it("sampling, elicitation and roots asked mid-call by stdio and HTTP servers reach the client; its answers go back", async () => {
    const { connect } = await serve();
    const { client } = await connect({ sampling: {}, elicitation: {}, roots: { listChanged: true } });
    const asked: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(JSON.stringify(request.params.messages[0]?.content));
      return { model: "client-model", role: "assistant", content: { type: "text", text: "four" } };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { name: "Ada" } };
    });
    let roots = ["file:///work/one"];
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((uri) => ({ uri })) }));
    for (const server of SERVERS) {
      const declared = JSON.parse(text(await client.callTool({ name: `${server}__client_capabilities`, arguments: {} })));
      expect(declared).toEqual({ sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } });
      expect(text(await client.callTool({ name: `${server}__ask_model`, arguments: { question: `${server}: 2+2?` } }))).toBe(
        "client-model said: four",
      );
      expect(text(await client.callTool({ name: `${server}__ask_user`, arguments: { question: `${server}: your name?` } }))).toBe(
        "hello Ada",
      );
      expect(text(await client.callTool({ name: `${server}__list_roots`, arguments: {} }))).toBe("file:///work/one");
    }
    expect(asked).toEqual([
      JSON.stringify({ type: "text", text: "local: 2+2?" }),
      "local: your name?",
      JSON.stringify({ type: "text", text: "web: 2+2?" }),
      "web: your name?",
    ]);
    // A change of the client's roots reaches every server it uses.
    roots = ["file:///work/one", "file:///work/two"];
    await client.sendRootsListChanged();
    for (const server of SERVERS) {
      await eventually(async () => text(await client.callTool({ name: `${server}__roots_changed`, arguments: {} })) === "1");
      expect(text(await client.callTool({ name: `${server}__list_roots`, arguments: {} }))).toBe("file:///work/one file:///work/two");
    }
  });

  it("a client that declared none: the servers are told none, and one that asks anyway gets a clean refusal", async () => {
    const { connect } = await serve();
    const { client } = await connect({});
    for (const server of SERVERS) {
      expect(JSON.parse(text(await client.callTool({ name: `${server}__client_capabilities`, arguments: {} })))).toEqual({});
      const refused = await client.callTool({ name: `${server}__ask_model`, arguments: { question: "2+2?" } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain("Method not found");
    }
    expect(text(await client.callTool({ name: "local__add", arguments: { a: 1, b: 2 } }))).toBe("3");
  });

  it("server-everything offers its sampling and elicitation tools only to a client that declared them, and asks for roots as it connects", async () => {
    const { connect } = await serve();
    const { client: plain } = await connect({});
    const offered = (await plain.listTools()).tools.map((tool) => tool.name);
    expect(offered).toContain("everything__echo");
    expect(offered).not.toContain("everything__trigger-sampling-request");
    expect(offered).not.toContain("everything__trigger-elicitation-request");

    const { client } = await connect({ sampling: {}, elicitation: {}, roots: { listChanged: true } });
    const rootsAsked: number[] = [];
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      rootsAsked.push(Date.now());
      return { roots: [{ uri: "file:///work/everything", name: "work" }] };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: "everything-model",
      role: "assistant",
      content: { type: "text", text: "sampled through the gateway" },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
    await eventually(async () => (await client.listTools()).tools.some((tool) => tool.name === "everything__trigger-sampling-request"));
    // It asked for the client's roots when it was connected (during the first listing).
    await eventually(() => rootsAsked.length > 0);
    const sampled = await client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 5 } });
    expect(text(sampled)).toContain("sampled through the gateway");
    const elicited = await client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} });
    expect(JSON.stringify(elicited.content)).toContain("declined");
  });

  it("on the wire: a call that asks nothing is a JSON answer; one that asks is SSE with the server's request first, answered by a POST; without SSE accepted the request goes on the GET stream", async () => {
    const { server, connect } = await serve();
    const { client, transport } = await connect({ sampling: {} });
    const post = (body: unknown, accept = "application/json, text/event-stream") =>
      fetch(server.url("/mcp"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${CLIENT_KEY}`,
          "content-type": "application/json",
          accept,
          "mcp-session-id": transport.sessionId as string,
        },
        body: JSON.stringify(body),
      });
    const plain = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "web__add", arguments: { a: 1, b: 1 } } });
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    const asking = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "web__ask_model", arguments: { question: "hi" } },
    });
    expect(asking.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const stream = sseOf(asking);
    const request = await stream.first();
    expect(request).toMatchObject({ jsonrpc: "2.0", id: expect.stringMatching(/^conduit-/), method: "sampling/createMessage" });
    const answered = await post({
      jsonrpc: "2.0",
      id: request.id,
      result: { model: "wire-model", role: "assistant", content: { type: "text", text: "hello" } },
    });
    expect(answered.status).toBe(202);
    expect(await stream.all()).toContain('"id":2,"result":{"content":[{"type":"text","text":"wire-model said: hello"}]}');
    // A POST that accepts only JSON: the server's request reaches the SDK client on its GET stream, and it answers.
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: "stream-model",
      role: "assistant",
      content: { type: "text", text: "via GET" },
    }));
    const jsonOnly = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "web__ask_model", arguments: { question: "hi" } } },
      "application/json",
    );
    expect(jsonOnly.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await jsonOnly.json()).toMatchObject({ id: 3, result: { content: [{ text: "stream-model said: via GET" }] } });
  });

  it("sessions on Redis: the client's answer and its roots change, posted to another process, reach the call and the server there", async () => {
    const keyPrefix = `test:mcp-client-requests:${randomBytes(4).toString("hex")}:`;
    const replica = async () => {
      const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
      bed.closers.push(() => redis.disconnect());
      const gateway = gatewayOf({ servers: { web: { url: bed.web.url } }, clientKeys: [CLIENT_KEY], redis, keyPrefix }, bed.gateways);
      return start({ setup: (adapter) => gateway.install(adapter) });
    };
    const [first, second] = await Promise.all([replica(), replica()]);
    const { client, transport } = await connectClient((first as typeof second).url("/mcp"), CLIENT_KEY, {
      capabilities: { sampling: {}, roots: { listChanged: true } },
    });
    bed.clients.push(client);
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
    const post = (to: typeof first, body: unknown) =>
      fetch(to.url("/mcp"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${CLIENT_KEY}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": transport.sessionId as string,
        },
        body: JSON.stringify(body),
      });
    const asking = await post(first, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "web__ask_model", arguments: { question: "hi" } },
    });
    const stream = sseOf(asking);
    const request = await stream.first();
    const answer = { model: "replica-model", role: "assistant", content: { type: "text", text: "from the other process" } };
    expect((await post(second, { jsonrpc: "2.0", id: request.id, result: answer })).status).toBe(202);
    expect(await stream.all()).toContain('"text":"replica-model said: from the other process"');
    // The upstream is connected on the first process only: the roots change posted to the second reaches it.
    expect((await post(second, { jsonrpc: "2.0", method: "notifications/roots/list_changed" })).status).toBe(202);
    await eventually(async () => text(await client.callTool({ name: "web__roots_changed", arguments: {} })) === "1");
  });
});
