// Deno: the bundled worker behind Deno.serve, as the adapter's README shows.
import handler from "./worker.mjs";

Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log(`listening on ${port}`) }, handler.fetch);
