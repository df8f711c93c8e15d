/**
 * Test fixture (run as a child process by logging.test.ts): the logging middleware on its
 * default destination (stdout) answers one request. argv: `stay` keeps the process alive
 * afterwards (the line must still come out, by the periodic flush), `exit` exits at once
 * (the line must come out on exit).
 */
import { createTestApp } from "./test-kit.js";
import { createLoggingMiddleware } from "../middleware/logging/logging.js";

const [mode = "stay"] = process.argv.slice(2);
const { request } = createTestApp({ middleware: [createLoggingMiddleware()] });
await request({ url: "/api/logged" });
if (mode === "exit") process.exit(0);
setInterval(() => {}, 1000);
