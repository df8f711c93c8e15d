import { createVerify, generateKeyPairSync, randomUUID } from "node:crypto";
import { eventFrame, messageBody, streamEvents } from "../anthropic/anthropic-wire.js";
import { type RecordedRequest, sendJson, startFakeServer } from "../fake-server.js";
import type { AnswerModel } from "../model-turn.js";
import { startVendorFake, type VendorCall, type VendorFake, type VendorFailure } from "../vendor-fake.js";
import { geminiBody, geminiCall, geminiError, geminiFrames, vectorOf } from "../gemini/gemini-wire.js";

/** A service-account key file as Google issues it, whose `token_uri` is the fake's token endpoint. */
export interface ServiceAccountFile {
  type: "service_account";
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

export interface FakeVertex extends VendorFake {
  /** The key file to hand the client (write it to disk for `credentials`). */
  serviceAccount: ServiceAccountFile;
  /** The token endpoint's requests (`POST /token`), each a JWT bearer grant. */
  tokenRequests: RecordedRequest[];
  /** Access tokens issued so far; API calls must carry one of them. */
  issuedTokens: Set<string>;
}

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

/** Checks a JWT bearer grant (RFC 7523) as Google's token endpoint does: RS256 by the account's key, its issuer, audience, scope and lifetime. */
function verifyAssertion(assertion: string, publicKey: string, account: ServiceAccountFile): string | undefined {
  const [header, claims, signature] = assertion.split(".");
  if (!header || !claims || !signature) return "malformed assertion";
  if (!createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature, "base64url")))
    return "invalid signature";
  const decoded = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as Record<string, unknown>;
  const now = Date.now() / 1000;
  if (decoded.iss !== account.client_email) return "unknown issuer";
  if (decoded.aud !== account.token_uri) return "wrong audience";
  if (typeof decoded.scope !== "string" || !decoded.scope.split(" ").includes(CLOUD_PLATFORM)) return "missing scope";
  if (typeof decoded.exp !== "number" || decoded.exp < now || typeof decoded.iat !== "number" || decoded.iat > now + 60) return "expired";
  return undefined;
}

/** The Vertex routes: Google's models (`…/publishers/google/models/{m}:…`) and Anthropic's (`…/publishers/anthropic/models/{m}:rawPredict`). */
function vertexCall(request: RecordedRequest): VendorCall | { failure: VendorFailure; message: string } {
  const anthropic = /\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(
    request.path,
  );
  if (anthropic) {
    const body = request.body as { messages?: unknown[]; tools?: Array<{ name: string }>; anthropic_version?: unknown };
    if (body.anthropic_version !== "vertex-2023-10-16")
      return { failure: "bad-request", message: "anthropic_version must be vertex-2023-10-16" };
    return {
      operation: anthropic[2] === "streamRawPredict" ? "stream" : "generate",
      model: anthropic[1] ?? "",
      conversation: { messages: body.messages ?? [], tools: body.tools ?? [] },
    };
  }
  if (!/\/v1(beta1)?\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\//.test(request.path))
    return { failure: "not-found", message: `no route ${request.method} ${request.path}` };
  return geminiCall(request);
}

/**
 * Vertex AI on loopback: a token endpoint (`POST /token`) that exchanges a service account's
 * signed JWT for an access token, Gemini models on the `generateContent` wire, Anthropic models
 * on `rawPredict`/`streamRawPredict` (the Messages wire with `anthropic_version: "vertex-2023-10-16"`),
 * and `:predict` embeddings. Every API call needs a token the endpoint issued.
 *
 * @example
 * const vertex = await startFakeVertex();
 * writeFileSync(path, JSON.stringify(vertex.serviceAccount));
 */
export async function startFakeVertex(options: { answer?: AnswerModel; project?: string } = {}): Promise<FakeVertex> {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const issuedTokens = new Set<string>();
  const tokenRequests: RecordedRequest[] = [];
  const fake = await startVendorFake(
    {
      route: vertexCall,
      credential: (request) => {
        const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
        return token !== undefined && issuedTokens.has(token) ? token : undefined;
      },
      error: geminiError,
      body: (turn, call) => (call.model.startsWith("claude-") ? messageBody(turn, call.model) : geminiBody(turn, call)),
      frames: (turn, call) =>
        call.model.startsWith("claude-") ? streamEvents(turn, call.model).map((event) => [eventFrame(event)]) : geminiFrames(turn, call),
      streamHeaders: { "content-type": "text/event-stream" },
      embeddings: (_call, request) => ({
        predictions: ((request.body.instances ?? []) as unknown[]).map((_, index) => ({
          embeddings: { values: vectorOf(index), statistics: { token_count: 3, truncated: false } },
        })),
      }),
    },
    "Vertex",
    options.answer,
  );
  const account: ServiceAccountFile = {
    type: "service_account",
    project_id: options.project ?? "conduit-test",
    private_key_id: randomUUID(),
    private_key: privateKey,
    client_email: "conduit@conduit-test.iam.gserviceaccount.com",
    client_id: "1234567890",
    token_uri: `${fake.url}/token`,
  };
  // The token endpoint is a server of its own, as Google's is another host than the API's.
  const tokens = await startFakeServer((request, response) => {
    tokenRequests.push(request);
    const form = new URLSearchParams(request.raw.toString("utf8"));
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer")
      return sendJson(response, 400, { error: "unsupported_grant_type" });
    const problem = verifyAssertion(form.get("assertion") ?? "", publicKey, account);
    if (problem) return sendJson(response, 400, { error: "invalid_grant", error_description: problem });
    const token = `ya29.fake-${randomUUID()}`;
    issuedTokens.add(token);
    return sendJson(response, 200, { access_token: token, expires_in: 3599, token_type: "Bearer" });
  });
  account.token_uri = `${tokens.url}/token`;
  const closeModels = fake.close;
  return Object.assign(fake, {
    serviceAccount: account,
    tokenRequests,
    issuedTokens,
    close: async () => {
      await Promise.all([closeModels(), tokens.close()]);
    },
  });
}
