// Bun: the bundled worker behind Bun.serve, as the adapter's README shows.
import handler from "./worker.mjs";

const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handler.fetch });
console.log(`listening on ${server.port}`);
