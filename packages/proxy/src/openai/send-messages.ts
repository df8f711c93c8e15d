// The pool's own contract: Claude models are looped back through exactly what `/v1/messages` uses.
export type { SendMessages } from "../send-messages.js";
