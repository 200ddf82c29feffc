// A process of its own that opens a pool of the postgres.js it is named (`postgres`, or
// `postgres-3`) through the fault proxy whose port it is given and runs one query, which the parent cuts during the connection's start (the driver's
// array-type fetch). Node ends a process on an unhandled rejection, so the exit code is the
// verdict: 0 when the cut only failed the query.
const [port, database, driver] = process.argv.slice(2);
const { default: postgres } = await import(driver);
const sql = postgres({
  host: '127.0.0.1',
  port: Number(port),
  database,
  username: 'postgres',
  max: 1,
  connect_timeout: 30,
  onnotice: () => undefined,
});
process.send({ started: true });
const outcome = await sql`SELECT 1 AS one`.then(
  () => 'resolved',
  (error) => `rejected ${error.code ?? error.message}`,
);
process.send({ outcome });
// Long enough for a rejection that escaped to end the process first.
await new Promise((resolve) => setTimeout(resolve, 1000));
await sql.end({ timeout: 0 }).catch(() => undefined);
process.exit(0);
