// The part of oidc-provider (which ships no types) the test OpenID Provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Model {
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
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
