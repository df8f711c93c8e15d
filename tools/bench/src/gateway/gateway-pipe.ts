// Child of `bench:gateway`: the floor of any Node proxy hop — Node's http server piping to Node's http
// client (keep-alive), no framework: `/v1/messages` to the Anthropic fake, anything else to the OpenAI fake.
import { Agent, createServer, request } from "node:http";
import { answerParent } from "./child-protocol.js";

const [anthropic = "", openai = ""] = process.argv.slice(2).map((url) => new URL(url));
const agent = new Agent({ keepAlive: true });
const server = createServer((incoming, outgoing) => {
  const upstream = incoming.url?.startsWith("/v1/messages") ? anthropic : openai;
  const forward = request(
    {
      host: upstream?.hostname,
      port: upstream?.port,
      path: incoming.url,
      method: incoming.method,
      agent,
      headers: { ...incoming.headers, "x-api-key": "sk-bench", authorization: "Bearer sk-bench", host: upstream?.host },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forward.on("error", () => outgoing.destroy());
  incoming.pipe(forward);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  answerParent(
    { http: typeof address === "object" && address ? address.port : 0 },
    () => new Promise((resolve) => server.close(() => resolve())),
  );
});
