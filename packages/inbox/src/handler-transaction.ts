import type { InboxConnection, InboxTransaction } from './connections.js';

/**
 * The handler's view of its transaction: `query` only, and only until the handler returned.
 * BEGIN goes out with the handler's first statement (awaited before it, so no statement of the
 * handler can run outside the transaction): a handler that runs none costs no BEGIN and COMMIT,
 * and its completion commits alone.
 */
export function handlerTransaction(connection: InboxConnection): {
  view: InboxTransaction;
  close(): void;
  begun(): boolean;
  onBegin(listener: () => void): void;
} {
  let open = true;
  let beginning: Promise<void> | undefined;
  let listener: (() => void) | undefined;
  const view: InboxTransaction = Object.freeze({
    async query(text: string, params?: readonly unknown[]) {
      if (!open) throw new Error('The transaction is over: the handler had already returned.');
      if (beginning === undefined) {
        listener?.();
        beginning = connection.begin();
      }
      await beginning;
      if (!open) throw new Error('The transaction is over: the handler had already returned.');
      return connection.query(text, params);
    },
  });
  return {
    view,
    close: () => {
      open = false;
    },
    begun: () => beginning !== undefined,
    onBegin: (next) => {
      listener = next;
    },
  };
}
