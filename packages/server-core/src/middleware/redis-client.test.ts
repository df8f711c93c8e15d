import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { type RedisEvalClient, runScript } from "./redis-client.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
afterAll(() => redis.disconnect());

/** The real client, recording which command each call used. */
function recording(): { client: RedisEvalClient; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    client: {
      eval: (script, keys, ...args) => {
        calls.push("eval");
        return redis.eval(script, keys, ...args);
      },
      evalsha: (sha, keys, ...args) => {
        calls.push("evalsha");
        return redis.evalsha(sha, keys, ...args);
      },
    },
  };
}

describe("runScript", () => {
  it("sends the body once: EVALSHA, EVAL after NOSCRIPT, then EVALSHA only", async () => {
    // A script Redis has never seen (unique comment), so the first EVALSHA meets NOSCRIPT.
    const script = `-- ${randomUUID()}\nreturn tonumber(ARGV[1]) + 1`;
    const { client, calls } = recording();
    expect(await runScript(client, script, 0, 41)).toBe(42);
    expect(calls).toEqual(["evalsha", "eval"]);
    expect(await runScript(client, script, 0, 1)).toBe(2);
    expect(await runScript(client, script, 0, 2)).toBe(3);
    expect(calls).toEqual(["evalsha", "eval", "evalsha", "evalsha"]);
  });

  it("passes other script errors through and works with a client without evalsha", async () => {
    const { client } = recording();
    await expect(runScript(client, `-- ${randomUUID()}\nreturn redis.call('NOSUCHCOMMAND')`, 0)).rejects.toThrow(
      /Unknown Redis command|unknown command/i,
    );
    const evalOnly: RedisEvalClient = { eval: (script, keys, ...args) => redis.eval(script, keys, ...args) };
    expect(await runScript(evalOnly, "return 7", 0)).toBe(7);
  });
});
