// Child of `bench:provider-translation`: one vendor fake (argv[2]: `gemini` or `openai`) answering
// the same turn in its own wire format — eight text pieces and the same usage.
import { fixedAnswer, startFakeGemini, startFakeOpenAI } from "@conduit-ai/fakes";
import { serveParent } from "./bench-children.js";

const answer = fixedAnswer(["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "dog."], { input: 24, output: 8 });
const fake = process.argv[2] === "gemini" ? await startFakeGemini({ answer }) : await startFakeOpenAI({ answer });
serveParent(Number(new URL(fake.url).port), () => fake.close());
