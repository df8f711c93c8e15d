import { ServerAdapterError } from "@conduit-ai/server-core";

/** The server error a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<ServerAdapterError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ServerAdapterError.isInstance(error)) throw new Error(`expected a ServerAdapterError, got ${String(error)}`);
  return error;
}
