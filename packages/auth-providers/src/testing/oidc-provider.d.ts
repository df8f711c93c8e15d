// The part of oidc-provider (which ships no types) the test OpenID Provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Model {
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    /** A grant of its own at the token endpoint: `handler` answers through `ctx.body` (koa's context, with `ctx.oidc`). */
    registerGrantType(
      name: string,
      handler: (ctx: {
        oidc: { params: Record<string, unknown>; client: { clientId: string } };
        status: number;
        body: unknown;
      }) => Promise<void>,
      parameters?: string[],
    ): void;
    Grant: new (properties: {
      accountId: string;
      clientId: string;
    }) => Model & { addOIDCScope(scope: string): void };
    Client: { find(id: string): Promise<unknown> };
    RefreshToken: new (
      properties: Record<string, unknown>,
    ) => Model;
  }
}
