// Child of `bench:gateway`: Portkey's open-source gateway (npm `@portkey-ai/gateway`, installed in a
// scratch folder by portkey-install.ts) inside this process, so the bench reads its CPU and memory over
// IPC exactly as it reads Conduit's. argv[2]: the gateway's entry file.
import { createServer } from "node:net";
import { pathToFileURL } from "node:url";
// Forked with the bench's own flags (tsx among them), so the TypeScript contract loads here too.
import { answerParent } from "./child-protocol.ts";

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
// Portkey reads --port= and --headless from argv, and prints a banner with a spinner: stdout is dropped.
const entry = process.argv[2];
process.argv = [process.argv[0], entry, `--port=${port}`, "--headless"];
process.stdout.write = () => true;
console.clear = () => {};
// Its per-request error traces (streams on Node 20: "TypeError: immutable") would flood the bench's
// output; the bench reports each failed request by its status instead.
console.error = () => {};
await import(pathToFileURL(entry).href);
for (let tries = 0; tries < 100; tries++) {
  const up = await fetch(`http://127.0.0.1:${port}/`).then(
    () => true,
    () => false,
  );
  if (up) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
answerParent({ http: port });
