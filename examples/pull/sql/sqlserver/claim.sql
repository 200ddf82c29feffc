-- QueueBox pull claim (SQL Server). Claims up to @p2 due messages of one pull source, at most one
-- per aggregate, and never a message whose aggregate already has a message in flight on this
-- source. Run it alone, outside any transaction of yours (it opens and commits its own), and
-- before any handler starts. Claims of one source take turns on an app lock named after the
-- source (about 110-140 claims per second per source whatever the number of workers; scale by
-- adding sources).
--
-- Parameters (bound by position as @p1..@p4, as the TypeScript client binds them):
--   @p1 source      NVARCHAR(255) the pull source name (the key under `sources`)
--   @p2 batch       INT           the most messages to claim
--   @p3 lease_ms    INT           the lease: the claim is yours until DB now + lease_ms
--   @p4 cand_limit  INT           LEAST(GREATEST(3 * batch, 50), 500), computed by the caller
--
-- Returns every column of each claimed row, in (scheduled_at, created_at, id) order, including
-- the new claim_token that fences renew, complete, retry and dead. All times are the database
-- clock, SYSUTCDATETIME(). Needs READ COMMITTED (READ_COMMITTED_SNAPSHOT ON works too: UPDLOCK
-- takes real locks) and a driver request timeout of at least 30 s: the lock wait below is 10 s
-- and must end on the server, with Msg 51000, before the driver gives up (an aborted request
-- leaves the lock held until the connection resets). Msg 51000 is transient: back off, then run
-- the whole claim again; never mark a message failed because of it.
--
-- The locals have names of their own: a DECLARE that reuses a bound parameter name fails (Msg 134).
DECLARE @src NVARCHAR(255) = @p1;
DECLARE @qbBatch INT = @p2;
DECLARE @qbLeaseMs INT = @p3;
DECLARE @qbCandLimit INT = @p4;
DECLARE @lockResult INT;
DECLARE @claimed TABLE (id UNIQUEIDENTIFIER PRIMARY KEY);

BEGIN TRANSACTION;

-- One claim per source at a time, owned by this transaction: it ends at COMMIT or ROLLBACK.
EXEC @lockResult = sp_getapplock @Resource = @src, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 10000;
IF @lockResult < 0
BEGIN
    ROLLBACK TRANSACTION;
    THROW 51000, 'inbox pull claim: sp_getapplock did not acquire the per-source claim lock', 1;
END;

WITH pending_candidates AS (
    -- (a) Due pending messages of the source, in schedule order, bounded.
    SELECT TOP (@qbCandLimit) [id], [aggregate_id], [scheduled_at], [created_at]
    FROM [inbox] WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE [source] = @src
      AND [consumption] = 'pull'
      AND [state] = 'pending'
      AND [scheduled_at] <= SYSUTCDATETIME()
    ORDER BY [scheduled_at], [created_at], [id]
), expired_candidates AS (
    -- (b) Messages whose claim lease ran out: taken over directly, with a new token.
    SELECT TOP (@qbCandLimit) [id], [aggregate_id], [scheduled_at], [created_at]
    FROM [inbox] WITH (UPDLOCK, READPAST, ROWLOCK)
    WHERE [source] = @src
      AND [consumption] = 'pull'
      AND [state] = 'processing'
      AND [lease_expires_at] <= SYSUTCDATETIME()
    ORDER BY [scheduled_at], [created_at], [id]
), ranked AS (
    -- The head of each aggregate among the candidates; a message without an aggregate is its
    -- own group.
    SELECT r.[id], r.[aggregate_id], r.[scheduled_at], r.[created_at],
           ROW_NUMBER() OVER (
               PARTITION BY COALESCE(r.[aggregate_id], '#' + CAST(r.[id] AS VARCHAR(36)))
               ORDER BY r.[scheduled_at], r.[created_at], r.[id]
           ) AS rank_in_aggregate
    FROM (SELECT * FROM pending_candidates UNION ALL SELECT * FROM expired_candidates) AS r
), eligible AS (
    -- Heads whose aggregate has no message of this source in flight under a live lease.
    SELECT TOP (@qbBatch) [id]
    FROM ranked AS e
    WHERE e.rank_in_aggregate = 1
      AND (e.[aggregate_id] IS NULL OR NOT EXISTS (
          SELECT 1
          FROM [inbox] AS b
          WHERE b.[source] = @src
            AND b.[consumption] = 'pull'
            AND b.[state] = 'processing'
            AND b.[aggregate_id] = e.[aggregate_id]
            AND b.[lease_expires_at] > SYSUTCDATETIME()))
    ORDER BY e.[scheduled_at], e.[created_at], e.[id]
)
-- The update runs on the base table and repeats the whole readiness predicate there, so a row
-- that changed after the candidates were read does not pass.
UPDATE i
SET [state] = 'processing',
    [claim_token] = NEWID(),
    [claimed_at] = SYSUTCDATETIME(),
    [lease_expires_at] = DATEADD(millisecond, @qbLeaseMs, SYSUTCDATETIME())
OUTPUT INSERTED.[id] INTO @claimed
FROM [inbox] AS i WITH (UPDLOCK, ROWLOCK)
JOIN eligible AS l ON l.[id] = i.[id]
WHERE i.[source] = @src
  AND i.[consumption] = 'pull'
  AND ((i.[state] = 'pending' AND i.[scheduled_at] <= SYSUTCDATETIME())
       OR (i.[state] = 'processing' AND i.[lease_expires_at] <= SYSUTCDATETIME()))
  AND (i.[aggregate_id] IS NULL OR NOT EXISTS (
      SELECT 1
      FROM [inbox] AS b
      WHERE b.[source] = @src
        AND b.[consumption] = 'pull'
        AND b.[state] = 'processing'
        AND b.[aggregate_id] = i.[aggregate_id]
        AND b.[id] <> i.[id]
        AND b.[lease_expires_at] > SYSUTCDATETIME()));

-- OUTPUT order is undefined: the claimed rows are read back in claim order.
SELECT i.*
FROM [inbox] AS i
WHERE i.[id] IN (SELECT c.[id] FROM @claimed AS c)
ORDER BY i.[scheduled_at], i.[created_at], i.[id];

COMMIT TRANSACTION;
