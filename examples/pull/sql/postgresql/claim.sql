-- QueueBox pull claim (PostgreSQL). Claims up to $2 due messages of one pull source, at most one
-- per aggregate, and never a message whose aggregate already has a message in flight on this
-- source. Run it alone in its own short transaction (autocommit is fine) and commit before any
-- handler starts.
--
-- Parameters:
--   $1 source      text    the pull source name (the key under `sources`)
--   $2 batch       integer the most messages to claim
--   $3 lease_ms    bigint  the lease: the claim is yours until DB now + lease_ms
--   $4 cand_limit  integer LEAST(GREATEST(3 * batch, 50), 500), computed by the caller every call
--
-- Returns every column of each claimed row, including the new claim_token that fences renew,
-- complete, retry and dead. All times are the database clock (clock_timestamp(), never now():
-- now() stands still for a whole transaction).
WITH pending_candidates AS (
    -- (a) Due pending messages of the source, in schedule order, bounded.
    SELECT c."id", c."aggregate_id", c."scheduled_at", c."created_at"
    FROM "inbox" c
    WHERE c."source" = $1
      AND c."consumption" = 'pull'
      AND c."state" = 'pending'
      AND c."scheduled_at" <= clock_timestamp()
    ORDER BY c."scheduled_at", c."created_at", c."id"
    LIMIT $4
), expired_candidates AS (
    -- (b) Messages whose claim lease ran out: taken over directly, with a new token.
    SELECT c."id", c."aggregate_id", c."scheduled_at", c."created_at"
    FROM "inbox" c
    WHERE c."source" = $1
      AND c."consumption" = 'pull'
      AND c."state" = 'processing'
      AND c."lease_expires_at" <= clock_timestamp()
    ORDER BY c."scheduled_at", c."created_at", c."id"
    LIMIT $4
), ranked AS (
    -- The head of each aggregate among the candidates; a message without an aggregate is its
    -- own group.
    SELECT r."id", r."aggregate_id", r."scheduled_at", r."created_at",
           row_number() OVER (
               PARTITION BY COALESCE(r."aggregate_id", '#' || r."id"::text)
               ORDER BY r."scheduled_at", r."created_at", r."id"
           ) AS rank_in_aggregate
    FROM (SELECT * FROM pending_candidates UNION ALL SELECT * FROM expired_candidates) r
), eligible AS (
    -- Heads whose aggregate has no message of this source in flight under a live lease.
    SELECT e."id", e."scheduled_at", e."created_at"
    FROM ranked e
    WHERE e.rank_in_aggregate = 1
      AND (e."aggregate_id" IS NULL OR NOT EXISTS (
          SELECT 1
          FROM "inbox" b
          WHERE b."source" = $1
            AND b."consumption" = 'pull'
            AND b."state" = 'processing'
            AND b."aggregate_id" = e."aggregate_id"
            AND b."lease_expires_at" > clock_timestamp()))
), locked AS (
    -- Lock on the base table and re-check the whole readiness predicate there: the CTEs above
    -- read a snapshot, and a row another worker claimed meanwhile must not pass. The batch
    -- limit counts locked rows only, so concurrent claims of one source divide the eligible
    -- heads between them instead of all taking the first `batch` and skipping each other's.
    -- The heads come in schedule order (OFFSET 0 keeps the subquery's order as the join's
    -- outer order; e's columns are the ones i has in this statement's snapshot), so the join
    -- stops once `batch` rows are locked: sorted after the join, every head (3 x batch) was
    -- looked up and re-checked first.
    SELECT i."id"
    FROM "inbox" i
    JOIN (SELECT * FROM eligible ORDER BY "scheduled_at", "created_at", "id" OFFSET 0) e
      ON e."id" = i."id"
    WHERE i."source" = $1
      AND i."consumption" = 'pull'
      AND ((i."state" = 'pending' AND i."scheduled_at" <= clock_timestamp())
           OR (i."state" = 'processing' AND i."lease_expires_at" <= clock_timestamp()))
      AND (i."aggregate_id" IS NULL OR NOT EXISTS (
          SELECT 1
          FROM "inbox" b
          WHERE b."source" = $1
            AND b."consumption" = 'pull'
            AND b."state" = 'processing'
            AND b."aggregate_id" = i."aggregate_id"
            AND b."id" <> i."id"
            AND b."lease_expires_at" > clock_timestamp()))
    ORDER BY e."scheduled_at", e."created_at", e."id"
    LIMIT $2
    FOR UPDATE OF i SKIP LOCKED
)
UPDATE "inbox" u
SET "state" = 'processing',
    "claim_token" = gen_random_uuid(),
    "claimed_at" = clock_timestamp(),
    "lease_expires_at" = clock_timestamp() + $3::bigint * interval '1 millisecond'
FROM locked l
WHERE u."id" = l."id"
  -- The predicate once more: if a concurrent claim changed the row after our lock check,
  -- PostgreSQL re-evaluates this WHERE on the newest row version (EvalPlanQual). Without it,
  -- two workers could both claim one row.
  AND u."source" = $1
  AND u."consumption" = 'pull'
  AND ((u."state" = 'pending' AND u."scheduled_at" <= clock_timestamp())
       OR (u."state" = 'processing' AND u."lease_expires_at" <= clock_timestamp()))
  AND (u."aggregate_id" IS NULL OR NOT EXISTS (
      SELECT 1
      FROM "inbox" b
      WHERE b."source" = $1
        AND b."consumption" = 'pull'
        AND b."state" = 'processing'
        AND b."aggregate_id" = u."aggregate_id"
        AND b."id" <> u."id"
        AND b."lease_expires_at" > clock_timestamp()))
RETURNING u.*;
