// A second process on the same Redis, for the shared-sessions test:
//   session-child.ts <redisUrl> <keyPrefix> create <userId>    → prints the new session as JSON
//   session-child.ts <redisUrl> <keyPrefix> list <userId>      → prints the user's session ids as JSON
import { RedisSessionStore } from "../sessions/redis-session-store.js";
import { SessionManager } from "../sessions/session-manager.js";

const [url, keyPrefix, command, userId] = process.argv.slice(2);
if (!url || !keyPrefix || !command || !userId) throw new Error("usage: session-child <redisUrl> <keyPrefix> <create|list> <userId>");
const manager = new SessionManager({ store: await RedisSessionStore.connect(url, { keyPrefix }), provider: "jwt", maxSessionsPerUser: 3 });
if (command === "create") {
  process.stdout.write(JSON.stringify(await manager.create({ id: userId, roles: ["child"], permissions: [] })));
} else {
  process.stdout.write(JSON.stringify((await manager.getUserSessions(userId)).map((session) => session.id)));
}
await manager.close();
