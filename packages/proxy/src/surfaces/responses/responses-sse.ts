import { jsonEventFrame } from "../event-stream.js";
import type { ResponsesEvent } from "../../wire/openai-responses/stream-translator.js";

/** Numbers the events of one Responses stream and frames each as `event: <type>` + `data: <json>`. */
export class ResponsesSse {
  private sequence = 0;

  frame(events: readonly ResponsesEvent[]): string {
    let frames = "";
    for (const event of events) {
      frames += jsonEventFrame({ ...event, sequence_number: this.sequence }, event.type);
      this.sequence++;
    }
    return frames;
  }
}
