import type { RequestFeedEvent } from "@conduit-ai/server-core/internal";
import { useEffect, useState } from "preact/hooks";
import { apiUrl } from "../api.js";
import { Panel, Problem, Status } from "../components/common.js";
import { guardrailHitLabel, guardrailHitsOf } from "../components/guardrail-hits.js";

/** One finished request as the feed sends it (type only: nothing of server-core reaches the bundle). */
type FeedEvent = RequestFeedEvent & { dropped?: number };

const KEEP = 200;

export function LivePage() {
  const [events, setEvents] = useState<FeedEvent[]>([]);
  const [state, setState] = useState<"connecting" | "live" | "reconnecting">("connecting");
  const [error, setError] = useState<string>();

  useEffect(() => {
    const source = new EventSource(apiUrl("live"));
    source.onopen = () => {
      setState("live");
      setError(undefined);
    };
    source.onerror = () => setState("reconnecting");
    source.addEventListener("data", (message) => {
      try {
        const event = (JSON.parse((message as MessageEvent<string>).data) as { data: FeedEvent }).data;
        setEvents((old) => [event, ...old].slice(0, KEEP));
      } catch {
        setError("An event could not be read");
      }
    });
    return () => source.close();
  }, []);

  return (
    <Panel
      title="Live requests"
      actions={
        <span class="live-state" data-testid="live-state">
          {state}
        </span>
      }
    >
      <Problem error={error} />
      <table>
        <caption>The last {KEEP} finished requests, newest first (no content is ever shown)</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Request</th>
            <th scope="col">Key</th>
            <th scope="col">Model</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Guardrails</th>
          </tr>
        </thead>
        <tbody data-testid="live-rows">
          {events.map((event) => (
            <tr key={event.requestId} data-testid={`live-${event.requestId}`}>
              <td>{new Date(event.time).toLocaleTimeString()}</td>
              <td>
                {event.method} {event.route}
              </td>
              <td title={event.key}>{event.keyName ?? event.key ?? "–"}</td>
              <td>{event.model ?? "–"}</td>
              <td>
                <Status value={String(event.status)} />
              </td>
              <td>{event.latencyMs} ms</td>
              <td>{event.inputTokens === undefined ? "–" : `${event.inputTokens} / ${event.outputTokens ?? 0}`}</td>
              <td data-testid={`live-guardrails-${event.requestId}`}>
                {event.guardrails?.length
                  ? guardrailHitsOf(event.guardrails).map((hit) => (
                      <span
                        key={`${hit.guardrail}:${hit.action}:${hit.direction}:${hit.entity}`}
                        class={`guardrail-hit guardrail-${hit.action}`}
                      >
                        {guardrailHitLabel(hit)}
                      </span>
                    ))
                  : "–"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
