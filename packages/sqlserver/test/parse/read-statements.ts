// The T-SQL reading support moved to @queuebox/testing/tsql, shared with @queuebox/inbox.
export { readBatch, type Reading } from '@queuebox/testing/tsql';
