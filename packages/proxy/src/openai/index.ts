export { type ChatCompletionsRouteOptions, chatCompletionsFor, createChatCompletionsRoute } from "./chat-completions-route.js";
export { type ChatRequest, chatRequestSchema } from "./chat-request-schema.js";
export { toMessagesRequest, type MessagesRequest } from "./to-messages-request.js";
export { fromMessagesResponse, type ChatCompletion } from "./from-messages-response.js";
export { ChunkTranslator, type ChatCompletionChunk } from "./chunk-translator.js";
export { translateMessagesStream } from "./chat-stream.js";
export { OpenAIError, fromVendorError } from "./openai-error.js";
export { openaiErrorShape, openaiKindOf, writeOpenAIError } from "./error-shape.js";
