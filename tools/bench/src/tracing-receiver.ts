// Child of `bench:tracing`: the OTLP/HTTP receiver in its own process, so its work never slows the
// load generator. It decodes every export with OpenTelemetry's protobuf definitions and counts the
// spans, keeping none (a collector's storage is not what the bench measures). Reports its
// endpoint; answers "count" with the spans received since the last count.
import { startOtlpReceiver } from "@conduit-ai/telemetry/testing";

const receiver = await startOtlpReceiver({ countOnly: true });
process.send?.({ endpoint: receiver.endpoint });
process.on("message", (message) => {
  if (message !== "count") return;
  const count = receiver.received;
  receiver.clear();
  process.send?.({ count });
});
process.on("disconnect", () => void receiver.close().then(() => process.exit(0)));
