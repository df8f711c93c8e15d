export const HTTP_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const SERVER_FRAMEWORKS = ["hono", "express", "fastify", "koa"] as const;
/** The closed set of supported frameworks; `hono` is the default. */
export type ServerFramework = (typeof SERVER_FRAMEWORKS)[number];

/** Response headers as the core keeps them: lower-case names; arrays for repeated headers such as `set-cookie`. */
export type ResponseHeaders = Record<string, string | string[]>;

/** Request headers as Node gives them: lower-case names. */
export type IncomingHeaders = Readonly<Record<string, string | string[] | undefined>>;
