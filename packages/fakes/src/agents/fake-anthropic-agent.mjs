// A loopback stand-in for the Anthropic Messages API that behaves like a tiny agent, so a real
// CLI can run a whole tool turn against it: when the prompt asks to read a file and the request
// offers a file-reading tool, it answers with a `tool_use`; when the conversation ends with that
// tool's result, it answers with a final text quoting the result. Structured output is answered
// in kind: a forced tool (`tool_choice: {type: "tool"}`) gets a call of it, and
// `output_config.format` a JSON text, each with a sample matching the schema. Every other call
// (titles, quota probes, summaries) gets a short text. Streams use Anthropic's real SSE framing.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

/** The final answer's text for a tool result: quotes the secret word found in it. */
export function finalAnswerFor(toolResultText) {
  const word = /secret word is ([a-z0-9-]+)/i.exec(toolResultText)?.[1];
  return word ? `The file says the secret word is ${word}.` : "The tool result did not contain the secret word.";
}

const textOf = (content) =>
  typeof content === "string"
    ? content
    : (content ?? [])
        .map((block) => (block.type === "text" ? block.text : block.type === "tool_result" ? textOf(block.content) : ""))
        .join("\n");

/** A value matching a JSON schema: strings say "pineapple-42", numbers 42, objects fill every property. */
export function sampleOf(schema) {
  const type = Array.isArray(schema?.type) ? schema.type.find((name) => name !== "null") : schema?.type;
  if (schema?.enum) return schema.enum[0];
  if (type === "object" || schema?.properties)
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, sampleOf(property)]));
  if (type === "array") return [sampleOf(schema.items)];
  if (type === "number" || type === "integer") return 42;
  if (type === "boolean") return true;
  return "pineapple-42";
}

/**
 * Which answer a request gets: the forced tool or structured text, a tool call (a file read, or
 * the MCP tool the prompt names), a final text after a tool result, or a short text.
 */
export function planAnswer(request) {
  const forced =
    request.tool_choice?.type === "tool" ? (request.tools ?? []).find((tool) => tool.name === request.tool_choice.name) : undefined;
  if (forced) return { kind: "tool", name: forced.name, input: sampleOf(forced.input_schema) };
  const format = request.output_config?.format;
  if (format?.type === "json_schema") return { kind: "text", text: JSON.stringify(sampleOf(format.schema)) };
  // Claude Code may end with a `system` message (mid-conversation system beta): read the last user turn.
  const last = (request.messages ?? []).filter((message) => message.role === "user").at(-1);
  const toolResult = Array.isArray(last?.content) ? last.content.find((block) => block.type === "tool_result") : undefined;
  if (toolResult) return { kind: "text", text: finalAnswerFor(textOf(toolResult.content)) };
  const prompt = textOf(last?.content);
  const path = /read the file (\S+?) and/i.exec(prompt)?.[1];
  const tools = new Map((request.tools ?? []).map((tool) => [tool.name, tool]));
  // "call the tool <name> with {json}": an MCP tool, by its name or as a client qualifies it (mcp__<server>__<name>).
  const asked = /call the tool (\S+) with (\{.*?\}) and/i.exec(prompt);
  const offered = asked ? [...tools.keys()].find((name) => name === asked[1] || name.endsWith(`__${asked[1]}`)) : undefined;
  if (asked && offered) return { kind: "tool", name: offered, input: JSON.parse(asked[2]) };
  if (path && tools.has("Read")) return { kind: "tool", name: "Read", input: { file_path: path } };
  if (path && tools.has("exec_command")) return { kind: "tool", name: "exec_command", input: { cmd: `cat ${path}` } };
  if (path && tools.has("shell")) return { kind: "tool", name: "shell", input: { command: ["cat", path] } };
  return { kind: "text", text: "OK from the fake Anthropic upstream." };
}

function contentOf(plan) {
  if (plan.kind === "tool")
    return [{ type: "tool_use", id: `toolu_${randomUUID().replaceAll("-", "").slice(0, 20)}`, name: plan.name, input: plan.input }];
  return [{ type: "text", text: plan.text }];
}

const usage = { input_tokens: 120, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function messageOf(request, content) {
  return {
    id: `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "message",
    role: "assistant",
    model: request.model,
    content,
    stop_reason: content[0].type === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage,
  };
}

/** The SSE events of one answer, framed as Anthropic frames them. */
export function streamEvents(request, content) {
  const message = messageOf(request, content);
  const events = [
    [
      "message_start",
      { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } },
    ],
    ["ping", { type: "ping" }],
  ];
  content.forEach((block, index) => {
    if (block.type === "tool_use") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } }]);
      const json = JSON.stringify(block.input);
      for (const piece of [json.slice(0, 7), json.slice(7)])
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } },
        ]);
    } else {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      for (const piece of [block.text.slice(0, 9), block.text.slice(9)])
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 12 } },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

/**
 * Starts the fake on an ephemeral loopback port.
 *
 * @example
 * const upstream = await startFakeAnthropicAgent({ apiKey: "sk-ant-fake" });
 * // point Conduit's proxy.upstream.anthropic at upstream.url; read upstream.requests afterwards
 */
export async function startFakeAnthropicAgent({ apiKey }) {
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const record = { method: request.method, url: request.url, headers: request.headers, body: raw, status: 0 };
      requests.push(record);
      const reply = (status, headers, body) => {
        Object.assign(record, { status, contentType: headers["content-type"], sent: body });
        response.writeHead(status, { "request-id": `req_${randomUUID()}`, ...headers }).end(body);
      };
      const path = (request.url ?? "").split("?")[0];
      if (request.method !== "POST" || !path.startsWith("/v1/messages"))
        return reply(
          404,
          { "content-type": "application/json" },
          JSON.stringify({ type: "error", error: { type: "not_found_error", message: "Not found" } }),
        );
      if (request.headers["x-api-key"] !== apiKey && request.headers.authorization !== `Bearer ${apiKey}`)
        return reply(
          401,
          { "content-type": "application/json" },
          JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }),
        );
      const body = JSON.parse(raw);
      if (path === "/v1/messages/count_tokens")
        return reply(200, { "content-type": "application/json" }, JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      const content = contentOf(planAnswer(body));
      if (!body.stream) return reply(200, { "content-type": "application/json" }, JSON.stringify(messageOf(body, content)));
      reply(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }, streamEvents(body, content));
    });
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
