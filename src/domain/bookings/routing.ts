import type { RoutingStats } from '../../db/queries/busy.ts';

export type SchedulingType = 'SOLO' | 'ROUND_ROBIN' | 'COLLECTIVE';

/**
 * ROUND_ROBIN order (decisions.md §4): fewest bookings in the period first, ties to the least
 * recently booked (never booked counts as least recent), then the hosts' own order.
 */
export function roundRobinOrder(freeIds: readonly string[], stats: readonly RoutingStats[]): string[] {
  const byId = new Map(stats.map((s) => [s.member_id, s]));
  const position = new Map(freeIds.map((id, i) => [id, i]));
  return [...freeIds].sort((a, b) => {
    const sa = byId.get(a);
    const sb = byId.get(b);
    const booked = (sa?.booked ?? 0) - (sb?.booked ?? 0);
    if (booked !== 0) return booked;
    const la = sa?.last_booked_at?.getTime() ?? -Infinity;
    const lb = sb?.last_booked_at?.getTime() ?? -Infinity;
    if (la !== lb) return la < lb ? -1 : 1;
    return position.get(a)! - position.get(b)!;
  });
}

/**
 * The order in which free hosts are tried for a booking. SOLO takes the first free host in the
 * event type's host order (its primary host when free); ROUND_ROBIN spreads the load, by the
 * stats freeHostsAt read with the slot. `freeIds` must already be in host order.
 */
export function candidateOrder(type: SchedulingType, freeIds: readonly string[], stats: readonly RoutingStats[]): string[] {
  if (type !== 'ROUND_ROBIN' || freeIds.length < 2) return [...freeIds];
  return roundRobinOrder(freeIds, stats);
}

/** `ids` in the order of `hosts`, anything unknown after them. */
export function inHostOrder(ids: readonly string[], hosts: readonly { id: string }[]): string[] {
  const rank = new Map(hosts.map((h, i) => [h.id, i]));
  return [...ids].sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
}
