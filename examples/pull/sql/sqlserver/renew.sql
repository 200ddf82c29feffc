-- QueueBox pull renew (SQL Server). Extends the lease of a message you hold.
--   @p1 lease_ms  INT               the new lease: DB now + lease_ms
--   @p2 id        UNIQUEIDENTIFIER  the message id
--   @p3 token     UNIQUEIDENTIFIER  the claim_token the claim returned
-- Exactly one row affected = still yours. Zero = ownership lost: stop the handler, complete
-- nothing, and never retry with another token.
UPDATE [inbox]
SET [lease_expires_at] = DATEADD(millisecond, @p1, SYSUTCDATETIME())
WHERE [id] = @p2
  AND [consumption] = 'pull'
  AND [state] = 'processing'
  AND [claim_token] = @p3
  AND [lease_expires_at] > SYSUTCDATETIME();
