// The T-SQL reading support moved to @queuebox/testing/tsql, shared with @queuebox/inbox.
export { declaredIn, splitBatch, variablesIn, withoutComments } from '@queuebox/testing/tsql';
