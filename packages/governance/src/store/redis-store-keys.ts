import type { WindowClock } from "../windows.js";
import type { Reservation } from "./governance-store.js";
import { hashTagOf } from "./redis-keyspace.js";

type Windows = Pick<WindowClock["ids"], "day" | "week" | "month">;

/** Where a key's or a team's keys live: the hash tag and the scope's name in it (`key:<id>`, `team`). */
export interface Scope {
  tag: string;
  name: string;
}

/**
 * The names of the Redis store's keys under one namespace (see the README's keyspace table):
 * records, leases, minute and window counters, each under its key's or team's hash tag.
 *
 * @example
 * const keys = new RedisStoreKeys("conduit:gov"); keys.recordKey("k_1", "ops"); // "{conduit:gov:t:ops}:key:k_1"
 */
export class RedisStoreKeys {
  constructor(readonly namespace: string) {}

  tag(keyId: string, team: string | undefined): string {
    return hashTagOf(this.namespace, keyId, team);
  }

  recordKey(keyId: string, team: string | undefined): string {
    return `${this.tag(keyId, team)}:key:${keyId}`;
  }

  teamRecordKey(team: string): string {
    return `${this.tag("", team)}:team`;
  }

  /**
   * A scope's lease, minute and window counters: one hash per window (`res`, `spent`), so a
   * day's, week's or month's counters expire after their window; `total` never does.
   */
  scopeKeys(scope: Scope, minute: string, windows: Windows): string[] {
    const { tag, name } = scope;
    const counters = `${tag}:ctr:${name}`;
    return [
      `${tag}:lease:${name}`,
      `${tag}:min:${name}:${minute}`,
      `${counters}:${windows.day}`,
      `${counters}:${windows.week}`,
      `${counters}:${windows.month}`,
      `${counters}:total`,
    ];
  }

  keyScope(keyId: string, team: string | undefined): Scope {
    return { tag: this.tag(keyId, team), name: `key:${keyId}` };
  }

  teamScope(team: string): Scope {
    return { tag: this.tag("", team), name: "team" };
  }

  /** The key's scope keys of a reservation, then its team's. */
  reservationKeys(reservation: Reservation): string[] {
    const keys = this.scopeKeys(this.keyScope(reservation.keyId, reservation.team), reservation.minute, reservation.windowIds);
    if (reservation.team) keys.push(...this.scopeKeys(this.teamScope(reservation.team), reservation.minute, reservation.windowIds));
    return keys;
  }
}
