/** What the outbox benches read of the table's states after and while QueueBox delivers. */

/** True once no row is left pending or processing: the delivery is over. */
export async function outboxDrained(sql) {
  const [row] =
    await sql`select exists(select 1 from outbox where state in ('pending', 'processing')) as busy`;
  return !row.busy;
}

/** The outbox's rows counted by state, as `{ state: count }`. */
export async function outboxFinalStates(sql) {
  const states =
    await sql`select state, count(*)::int as n from outbox group by state order by state`;
  return Object.fromEntries(states.map((r) => [r.state, r.n]));
}
