/**
 * Which writer wins when a destination's static headers, its auth header and a row's headers
 * name the same header (case-insensitively), for every destination type.
 *
 * - An application's own row: static < auth < row, the row being the last writer (spec §6). The
 *   application owns the row, so it may override what the destination sends.
 * - A row the relay wrote (it carries `x-inbox-id`): row < static < auth. Its headers are what a
 *   webhook sender or broker producer sent, so on the spec's order a sender could choose the
 *   credential QueueBox presents to the destination (a forged `X-Api-Key` replacing the
 *   configured one). This departs from spec §6 and §8.3 on purpose (docs/decisions.md).
 *
 * Whatever the row, the headers QueueBox owns (`owned-headers.ts`: the message id, topic, attempt
 * and key) never come from the merge: each publisher sets its own value once, so no copy goes
 * beside it (spec §6 sent a row's copy as a second value; docs/decisions.md).
 */
import { isOwnedHeader, ownedHeaderKeys } from './owned-headers.js';

/** The header the relay sets on every outbox row it writes (spec §8.3), and a sender cannot set. */
export const RELAYED_ROW_HEADER = 'x-inbox-id';

/** `[name as written, value]`. */
export type HeaderEntry = readonly [name: string, value: string];

/** Lower-case name → entry. */
export type HeaderMap = Map<string, HeaderEntry>;

/**
 * The custom headers of one message in the precedence above, later writers replacing earlier
 * ones by lower-case name (the name keeps the winner's spelling). `row` holds the row's headers
 * keyed by lower-case name, so a relayed row is one that holds `x-inbox-id`. The merge is built
 * in `row` itself, which is returned (one map per message on the publish path).
 */
export function mergeCustomHeaders(
  staticHeaders: HeaderMap,
  auth: HeaderEntry | null,
  row: HeaderMap,
  /** Lower-case names also owned on this destination (the signing headers where it signs). */
  alsoOwned?: readonly string[],
): HeaderMap {
  for (const owned of ownedHeaderKeys()) row.delete(owned);
  if (alsoOwned !== undefined) {
    // Dropped after the merge too: a static or auth copy must not come back in.
    for (const owned of alsoOwned) row.delete(owned);
    mergeInto(staticHeaders, auth, row);
    for (const owned of alsoOwned) row.delete(owned);
    return row;
  }
  return mergeInto(staticHeaders, auth, row);
}

function mergeInto(staticHeaders: HeaderMap, auth: HeaderEntry | null, row: HeaderMap): HeaderMap {
  const relayed = row.has(RELAYED_ROW_HEADER);
  const authName = auth === null ? null : auth[0].toLowerCase();
  // On an application's row a row header keeps its place; checked before static ones are added.
  const authWins = authName !== null && (relayed || !row.has(authName));
  for (const [lower, entry] of staticHeaders) {
    if ((relayed || !row.has(lower)) && !isOwnedHeader(lower)) row.set(lower, entry);
  }
  if (authWins && auth !== null && authName !== null && !isOwnedHeader(authName))
    row.set(authName, auth);
  return row;
}
