// Child of `bench:tracing`: the OTLP/HTTP receiver in its own process, so its work never slows the
// load generator. It counts the spans of every export by walking the protobuf wire format, keeping
// none (a collector's decoding and storage are not what the bench measures). Reports its
// endpoint; answers "count" with the spans received since the last count and the CPU µs it spent
// meanwhile (on a 2-core host its work competes with the server and the load generator).
import { startOtlpReceiver } from "@conduit-ai/fakes";

const receiver = await startOtlpReceiver({ countOnly: true });
let since = process.cpuUsage();
process.send?.({ endpoint: receiver.endpoint });
process.on("message", (message) => {
  if (message !== "count") return;
  const count = receiver.received;
  receiver.clear();
  const used = process.cpuUsage(since);
  since = process.cpuUsage();
  process.send?.({ received: { count, cpu: used.user + used.system } });
});
process.on("disconnect", () => void receiver.close().then(() => process.exit(0)));
