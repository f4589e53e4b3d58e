// Kysely on SQLite's two connections. A transaction, and any statement other than a SELECT, takes
// the writer, one at a time, as Kysely's own driver does; a SELECT outside a transaction reads
// through the read-only connection at once. On one connection such a read waited for whatever
// held the writer, and under group commit (work.ts) that is a whole group of writes, up to 50 ms.
// The read-only connection sees what was committed, which is all such a read could see before.
import {
  SelectQueryNode,
  SqliteDialect,
  SqliteDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';

/** A connection as Kysely sees it: the writer's once a transaction began on it, else either. */
class Routed implements DatabaseConnection {
  /** The writer's connection, held from the transaction's begin until Kysely releases this one. */
  held: DatabaseConnection | undefined;

  constructor(
    private readonly writer: SqliteDriver,
    private readonly reader: SqliteDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.held !== undefined) return this.held.executeQuery<R>(query);
    const driver = this.driverFor(query);
    const connection = await driver.acquireConnection();
    try {
      return await connection.executeQuery<R>(query);
    } finally {
      await driver.releaseConnection();
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.held !== undefined) {
      yield* this.held.streamQuery<R>(query, chunkSize);
      return;
    }
    const driver = this.driverFor(query);
    const connection = await driver.acquireConnection();
    try {
      yield* connection.streamQuery<R>(query, chunkSize);
    } finally {
      await driver.releaseConnection();
    }
  }

  private driverFor(query: CompiledQuery): SqliteDriver {
    return SelectQueryNode.is(query.query) ? this.reader : this.writer;
  }
}

function routed(connection: DatabaseConnection): Routed {
  if (!(connection instanceof Routed)) throw new Error('not a connection of this driver');
  return connection;
}

function held(connection: DatabaseConnection): DatabaseConnection {
  const writer = routed(connection).held;
  if (writer === undefined) throw new Error('no transaction on this connection');
  return writer;
}

class RoutingDriver implements Driver {
  private readonly writer: SqliteDriver;
  private readonly reader: SqliteDriver;

  constructor(writer: SqliteDatabase, reader: SqliteDatabase) {
    this.writer = new SqliteDriver({ database: writer });
    this.reader = new SqliteDriver({ database: reader });
  }

  async init(): Promise<void> {
    await this.writer.init();
    await this.reader.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(new Routed(this.writer, this.reader));
  }

  // Kysely's SQLite driver takes no settings either: SQLite's transactions are serializable.
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const r = routed(connection);
    r.held = await this.writer.acquireConnection();
    await this.writer.beginTransaction(r.held);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.writer.commitTransaction(held(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.writer.rollbackTransaction(held(connection));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.writer.savepoint(held(connection), name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.writer.rollbackToSavepoint(held(connection), name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.writer.releaseSavepoint(held(connection), name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const r = routed(connection);
    if (r.held === undefined) return;
    r.held = undefined;
    await this.writer.releaseConnection();
  }

  async destroy(): Promise<void> {
    await this.writer.destroy();
    await this.reader.destroy();
  }
}

/** SQLite through a writer and a read-only connection to the same file (distinct connections). */
export class RoutingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly writer: SqliteDatabase,
    private readonly reader: SqliteDatabase,
  ) {
    super({ database: writer });
  }

  override createDriver(): Driver {
    return new RoutingDriver(this.writer, this.reader);
  }
}
