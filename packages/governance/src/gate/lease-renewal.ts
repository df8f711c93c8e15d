import type { GovernanceStore, Reservation } from "../store/governance-store.js";

/** A call still open is renewed this long at most (a surface that never settles must not hold a slot forever). */
export const LEASE_RENEWAL_LIMIT_MS = 6 * 3_600_000;

/**
 * Keeps a long call's lease alive: renewed at a third of its life while the call is open (a
 * stream longer than its route's timeout), so the lease can be short — a process that dies or
 * loses its store frees the slot after the call's own timeout, not after a fixed quarter hour.
 * A third, not a half: one renewal lost to a store hiccup still leaves another before the lease
 * expires and the lost-call sweeper takes the call for a dead process's. Clear `timer` to stop.
 *
 * @example
 * const renewal = keepLeaseAlive(store, reservation, 630_000); // at settlement: clearTimeout(renewal.timer)
 */
export function keepLeaseAlive(
  store: Pick<GovernanceStore, "renewLease">,
  reservation: Reservation,
  leaseTtlMs: number,
): { timer: NodeJS.Timeout | undefined } {
  const renewal: { timer: NodeJS.Timeout | undefined } = { timer: undefined };
  const everyMs = Math.max(200, Math.floor(leaseTtlMs / 3));
  const stopAt = Date.now() + LEASE_RENEWAL_LIMIT_MS;
  const renew = () => {
    if (Date.now() >= stopAt) return;
    store.renewLease(reservation, Date.now() + leaseTtlMs).catch(() => undefined);
    renewal.timer = setTimeout(renew, everyMs);
    renewal.timer.unref();
  };
  renewal.timer = setTimeout(renew, everyMs);
  renewal.timer.unref();
  return renewal;
}
