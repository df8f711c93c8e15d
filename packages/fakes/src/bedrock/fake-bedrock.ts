import type { AnswerModel } from "../model-turn.js";
import { startVendorFake, type VendorFake } from "../vendor-fake.js";
import { converseBody, converseCall, converseError, converseFrames } from "./converse-wire.js";
import { type AwsCredentials, signatureProblem } from "./signature-v4.js";

export interface FakeBedrock extends VendorFake {
  /** The credentials whose SigV4 signatures it accepts. */
  credentials: AwsCredentials;
  /** Why the last refused request's signature was refused. */
  lastSignatureProblem: string | undefined;
}

/**
 * Bedrock Runtime on loopback: `POST /model/{modelId}/converse` (JSON) and `/converse-stream`
 * (the AWS event stream encoding, `application/vnd.amazon.eventstream`), and `/invoke` for Titan
 * embeddings. Every request's SigV4 signature (service `bedrock`) is checked against
 * `credentials`; usage reports cache reads. Errors are AWS's (`x-amzn-ErrorType`).
 *
 * @example
 * const bedrock = await startFakeBedrock();
 * createAmazonBedrock({ region: "us-east-1", baseURL: bedrock.url, ...bedrock.credentials });
 */
export async function startFakeBedrock(options: { answer?: AnswerModel } = {}): Promise<FakeBedrock> {
  const credentials: AwsCredentials = { accessKeyId: "AKIAFAKEBEDROCK00001", secretAccessKey: "fake-bedrock-secret-access-key-0000000000" };
  let fake: FakeBedrock;
  const vendor = await startVendorFake(
    {
      route: converseCall,
      credential: (request) => {
        fake.lastSignatureProblem = signatureProblem(request, credentials, "bedrock");
        return fake.lastSignatureProblem === undefined ? credentials.accessKeyId : undefined;
      },
      error: converseError,
      body: (turn) => converseBody(turn),
      frames: (turn) => converseFrames(turn),
      streamHeaders: { "content-type": "application/vnd.amazon.eventstream" },
      embeddings: () => ({ embedding: [0, 1, 0.5], inputTextTokenCount: 3 }),
    },
    "Bedrock",
    options.answer,
  );
  fake = Object.assign(vendor, { credentials, lastSignatureProblem: undefined });
  return fake;
}
