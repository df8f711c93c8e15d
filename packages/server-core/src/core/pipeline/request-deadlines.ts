import { TimeoutError } from "../../errors/server-errors.js";
import { DeadlineQueue } from "./deadline-queue.js";
import type { RequestContext } from "./request-context.js";

/**
 * The timeouts of requests in flight: `config.timeout` for most, a route's own `timeoutMs` for
 * the rest, one deadline queue per distinct timeout (each keeps its deadlines in start order, so
 * adding and removing one is O(1); see deadline-queue.ts).
 *
 * @example
 * const deadlines = new RequestDeadlines(30_000);
 * await deadlines.within(context, runPipeline(context));
 */
export class RequestDeadlines {
  private readonly byTimeout = new Map<number, DeadlineQueue>();

  constructor(private readonly defaultTimeout: number) {
    this.byTimeout.set(defaultTimeout, new DeadlineQueue(defaultTimeout));
  }

  /**
   * Settles with `work`, or rejects with `TimeoutError` (aborting the request's signal) when its
   * timeout passes first. Bounds everything before the response starts; a stream's body is not bounded.
   */
  within(context: RequestContext, work: Promise<void>): Promise<void> {
    const timeout = context.route?.timeoutMs ?? this.defaultTimeout;
    const deadlines = this.queueFor(timeout);
    // One promise settled by whichever comes first (cheaper per request than race + finally).
    return new Promise<void>((resolve, reject) => {
      const deadline = deadlines.add(context.startTime, () => {
        const error = new TimeoutError(`Request timed out after ${timeout} ms`);
        context.abortController.abort(error);
        reject(error);
      });
      work.then(
        () => {
          deadlines.remove(deadline);
          resolve();
        },
        (error: unknown) => {
          deadlines.remove(deadline);
          reject(error);
        },
      );
    });
  }

  private queueFor(timeout: number): DeadlineQueue {
    let queue = this.byTimeout.get(timeout);
    if (!queue) {
      queue = new DeadlineQueue(timeout);
      this.byTimeout.set(timeout, queue);
    }
    return queue;
  }
}
