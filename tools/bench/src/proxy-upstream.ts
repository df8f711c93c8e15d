// Child of `bench:proxy`: the fake Anthropic upstream (real wire format), on its own process.
import { startFakeAnthropic } from "@conduit-ai/fakes";

const fake = await startFakeAnthropic();
fake.credentials.add("sk-bench");
fake.extraDeltas = Number(process.argv[2] ?? "0");
// The fake keeps every request and exchange for tests' assertions; a bench only needs the traffic.
setInterval(() => {
  fake.requests.length = 0;
  fake.exchanges.length = 0;
}, 500).unref();
process.send?.({ port: Number(new URL(fake.url).port) });
process.on("disconnect", () => void fake.close().then(() => process.exit(0)));
