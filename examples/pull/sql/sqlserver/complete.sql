-- QueueBox pull complete (SQL Server). Run it inside the handler's transaction, so the handler's
-- writes and the completion commit together.
--   @p1 id     UNIQUEIDENTIFIER  the message id
--   @p2 token  UNIQUEIDENTIFIER  the claim_token the claim returned
-- Exactly one row affected = commit. Zero = the claim was lost: roll the whole transaction back.
UPDATE [inbox]
SET [state] = 'processed',
    [processed_at] = SYSUTCDATETIME(),
    [claim_token] = NULL,
    [lease_expires_at] = NULL
WHERE [id] = @p1
  AND [consumption] = 'pull'
  AND [state] = 'processing'
  AND [claim_token] = @p2
  AND [lease_expires_at] > SYSUTCDATETIME();
