import { ISOLATION_LEVEL, Request, TYPES, type Connection } from 'tedious';

type DataType = (typeof TYPES)[keyof typeof TYPES];
import type { ParamType, Statement } from '../sql/statement.js';

/** One result of a statement: every row of every result set, and the rows it changed. */
export interface StatementResult<R = Record<string, unknown>> {
  /** The rows of every result set, in order (most statements return one set). */
  readonly rows: R[];
  readonly recordsets: R[][];
  /** Rows affected, summed over the batch's statements (tedious's rowCount). */
  readonly rowCount: number;
}

/** A borrowed connection: statements run one at a time, in order. */
export interface Session {
  run<R = Record<string, unknown>>(statement: Statement): Promise<StatementResult<R>>;
  /**
   * Runs `work` in one READ COMMITTED transaction on this connection: commit when it resolves,
   * rollback when it throws. Transaction-owned app locks end with it.
   */
  inTransaction<T>(work: () => Promise<T>): Promise<T>;
}

const TYPE_OF: Record<ParamType, DataType> = {
  nvarchar: TYPES.NVarChar,
  'nvarchar(max)': TYPES.NVarChar,
  varchar: TYPES.VarChar,
  int: TYPES.Int,
  bigint: TYPES.BigInt,
  bit: TYPES.Bit,
  uniqueidentifier: TYPES.UniqueIdentifier,
  datetime2: TYPES.DateTime2,
};

/** tedious's one-request-at-a-time connection as a promise per statement. */
export function sessionOf(connection: Connection): Session {
  const command = (start: (done: (error?: Error | null) => void) => void): Promise<void> =>
    new Promise((resolve, reject) => {
      start((error) => (error ? reject(error) : resolve()));
    });
  return {
    async inTransaction<T>(work: () => Promise<T>): Promise<T> {
      await command((done) =>
        connection.beginTransaction(done, '', ISOLATION_LEVEL.READ_COMMITTED),
      );
      let result: T;
      try {
        result = await work();
      } catch (error: unknown) {
        // XACT_ABORT may already have rolled back on the server; a second rollback then fails
        // with "no transaction", which says nothing about the work's own error.
        await command((done) => connection.rollbackTransaction(done)).catch(() => undefined);
        throw error;
      }
      await command((done) => connection.commitTransaction(done));
      return result;
    },
    run<R>(statement: Statement): Promise<StatementResult<R>> {
      return new Promise((resolve, reject) => {
        const recordsets: R[][] = [];
        let current: R[] | undefined;
        const request = new Request(statement.text, (error, rowCount) => {
          if (error) reject(error);
          else resolve({ rows: recordsets.flat(), recordsets, rowCount: rowCount ?? 0 });
        });
        for (const param of statement.params) {
          // DATETIME2(7) keeps the full precision of the columns; string lengths are tedious's
          // (4000 or MAX by the value), which the server converts without scanning a column.
          const options = param.type === 'datetime2' ? { scale: 7 } : undefined;
          request.addParameter(param.name, TYPE_OF[param.type], param.value, options);
        }
        request.on('columnMetadata', () => {
          current = [];
          recordsets.push(current);
        });
        request.on('row', (columns: { value: unknown; metadata: { colName: string } }[]) => {
          const row: Record<string, unknown> = {};
          for (const column of columns) row[column.metadata.colName] = column.value;
          current?.push(row as R);
        });
        // A statement without parameters runs as a batch: no sp_executesql scope, so a DDL
        // migration batch and the SET options it relies on behave as they do in a script.
        if (statement.params.length === 0) connection.execSqlBatch(request);
        else connection.execSql(request);
      });
    },
  };
}
