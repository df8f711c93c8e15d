// A loopback stand-in for the ChatGPT codex backend (`POST /backend-api/codex/responses`) that
// behaves like a tiny agent in the Responses API's SSE format: asked to read a file while an
// `exec_command` (or `shell`) tool is offered, it answers with a `function_call`; once the input
// ends with that call's output, it answers with a final message quoting it. WebSocket upgrades
// are refused with 404, as a backend without them would.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { finalAnswerFor } from "./fake-anthropic-agent.mjs";

const textOf = (content) =>
  typeof content === "string" ? content : (content ?? []).map((part) => (typeof part.text === "string" ? part.text : "")).join("\n");

/** The output item a request gets: a function call, a final message after its output, or a short message. */
export function planOutputItem(request) {
  const input = typeof request.input === "string" ? [{ type: "message", role: "user", content: request.input }] : (request.input ?? []);
  const last = input.at(-1);
  if (last?.type === "function_call_output")
    return {
      type: "message",
      id: `msg_${randomUUID().slice(0, 8)}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: finalAnswerFor(textOf(last.output) || String(last.output)), annotations: [] }],
    };
  const prompt = textOf(input.filter((item) => item.role === "user").at(-1)?.content);
  const path = /read the file (\S+?) and/i.exec(prompt)?.[1];
  const tools = new Set((request.tools ?? []).map((tool) => tool.name));
  const call = (name, args) => ({
    type: "function_call",
    id: `fc_${randomUUID().slice(0, 8)}`,
    call_id: `call_${randomUUID().slice(0, 8)}`,
    name,
    arguments: JSON.stringify(args),
    status: "completed",
  });
  if (path && tools.has("exec_command")) return call("exec_command", { cmd: `cat ${path}` });
  if (path && tools.has("shell")) return call("shell", { command: ["cat", path] });
  return {
    type: "message",
    id: `msg_${randomUUID().slice(0, 8)}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "OK from the fake codex backend.", annotations: [] }],
  };
}

/** The Responses SSE events for one output item, as the codex backend sends them. */
export function responseEvents(request, item) {
  const response = {
    id: `resp_${randomUUID().slice(0, 12)}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: request.model,
    status: "in_progress",
    output: [],
  };
  let sequence = 0;
  const events = [
    ["response.created", { response }],
    ["response.in_progress", { response }],
  ];
  if (item.type === "function_call") {
    events.push(["response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } }]);
    events.push(["response.function_call_arguments.delta", { item_id: item.id, output_index: 0, delta: item.arguments }]);
    events.push(["response.function_call_arguments.done", { item_id: item.id, output_index: 0, arguments: item.arguments }]);
  } else {
    const text = item.content[0].text;
    events.push(["response.output_item.added", { output_index: 0, item: { ...item, content: [], status: "in_progress" } }]);
    events.push([
      "response.content_part.added",
      { item_id: item.id, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
    ]);
    for (const delta of [text.slice(0, 8), text.slice(8)])
      events.push(["response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta }]);
    events.push(["response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text }]);
    events.push(["response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part: item.content[0] }]);
  }
  events.push(["response.output_item.done", { output_index: 0, item }]);
  const usage = {
    input_tokens: 90,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 100,
  };
  events.push(["response.completed", { response: { ...response, status: "completed", output: [item], usage } }]);
  return events
    .map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`)
    .join("");
}

/**
 * Starts the fake on an ephemeral loopback port.
 *
 * @example
 * const backend = await startFakeCodexAgent({ accessToken: "codex-token" });
 * // point Conduit's proxy.upstream.codex at backend.url
 */
export async function startFakeCodexAgent({ accessToken }) {
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const record = { method: request.method, url: request.url, headers: request.headers, body: raw, status: 0 };
      requests.push(record);
      const reply = (status, headers, body) => {
        record.status = status;
        response.writeHead(status, headers).end(body);
      };
      if (request.method !== "POST" || request.url !== "/backend-api/codex/responses")
        return reply(404, { "content-type": "application/json" }, JSON.stringify({ detail: "Not Found" }));
      if (request.headers.authorization !== `Bearer ${accessToken}`)
        return reply(
          401,
          { "content-type": "application/json" },
          JSON.stringify({ error: { type: "invalid_request_error", message: "bad token" } }),
        );
      const body = JSON.parse(raw);
      reply(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }, responseEvents(body, planOutputItem(body)));
    });
  });
  server.on("upgrade", (request, socket) => {
    requests.push({ method: request.method, url: request.url, headers: request.headers, body: "", status: 404, upgrade: true });
    socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
