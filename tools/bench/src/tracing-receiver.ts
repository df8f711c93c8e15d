// Child of `bench:tracing`: the OTLP/HTTP receiver (decodes every span with the OpenTelemetry
// packages, as a collector would) in its own process, so decoding spans never slows the load
// generator. Reports its endpoint; answers "count" with the spans received since the last count.
import { startOtlpReceiver } from "@conduit-ai/telemetry/testing";

const receiver = await startOtlpReceiver();
process.send?.({ endpoint: receiver.endpoint });
process.on("message", (message) => {
  if (message !== "count") return;
  const count = receiver.spans.length;
  receiver.clear();
  process.send?.({ count });
});
process.on("disconnect", () => void receiver.close().then(() => process.exit(0)));
