// `bench:proxy -- --baseline`: the floor any proxy hop pays here — Node's http server piping to
// Node's http client (keep-alive), no framework, no pool. Same IPC contract as proxy-server.ts.
import { Agent, createServer, request } from "node:http";
import { serveParent } from "./bench-children.js";

const upstream = new URL(process.argv[2] ?? "");
const agent = new Agent({ keepAlive: true });
const server = createServer((incoming, outgoing) => {
  const forward = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: incoming.url,
      method: incoming.method,
      agent,
      headers: { ...incoming.headers, "x-api-key": "sk-bench", host: upstream.host },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  incoming.pipe(forward);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  serveParent(typeof address === "object" && address ? address.port : 0, () => new Promise((resolve) => server.close(() => resolve())));
});
