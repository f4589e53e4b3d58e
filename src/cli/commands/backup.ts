// A consistent copy of a SQLite store while the server keeps running (SQLite's online backup);
// for PostgreSQL, the pg_dump command that does the same.
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../../config.js';
import { existingStore, json, parseWith, sqliteFile, UsageError, type Command } from '../io.js';

export const backupCommand: Command = {
  name: 'backup',
  summary: 'copy the SQLite store to a file while the server runs (PostgreSQL: prints the pg_dump command)',
  usage: [
    'backup <file>',
    '  <file>  where the copy goes (it must not exist; its folder is created); restore by pointing DATABASE_URL at a copy of it',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals } = parseWith(this, args, {}, true);
    const [target, ...extra] = positionals;
    if (target === undefined || target === '' || extra.length > 0) throw new UsageError('one <file> is required', this);
    const config = loadConfig(io.env);
    // sqliteFile has no file for an in-memory store either, which is not PostgreSQL.
    if (config.databaseUrl === 'sqlite::memory:') {
      io.stderr.write('backup: DATABASE_URL is an in-memory SQLite store (sqlite::memory:); it has no file to copy\n');
      return 1;
    }
    const source = sqliteFile(config.databaseUrl);
    if (source === undefined) {
      io.stderr.write(
        [
          'DATABASE_URL is PostgreSQL: back it up with pg_dump (a consistent snapshot while the server runs):',
          `  pg_dump --format=custom --file=${target} "$DATABASE_URL"`,
          'and restore into an empty database with:',
          `  pg_restore --no-owner --dbname="$DATABASE_URL" ${target}`,
          '',
        ].join('\n'),
      );
      return 1;
    }
    if (existsSync(target)) {
      io.stderr.write(`backup: ${target} already exists; choose a new file\n`);
      return 1;
    }
    existingStore(config);
    try {
      // A dated file in a folder of backups (README's example) works on the first run too.
      mkdirSync(dirname(target), { recursive: true });
      const db = new SQLite(source, { readonly: true, fileMustExist: true });
      try {
        await db.backup(target);
      } finally {
        db.close();
      }
    } catch (e) {
      // Nothing half-written is left behind to be taken for a backup.
      if (existsSync(target)) rmSync(target);
      io.stderr.write(
        `backup: could not copy ${source} to ${target} (${e instanceof Error ? e.message : String(e)})\n`,
      );
      return 1;
    }
    const result = { file: resolve(target), bytes: statSync(target).size };
    io.stdout.write(
      values.json === true ? json(result) : `backed up ${source} to ${result.file} (${result.bytes} bytes)\n`,
    );
    // The copy's secrets (app secrets, webhook secrets) are encrypted with this key; without it they are lost.
    io.stderr.write(
      `keep the encryption key with it: ${config.encryptionKey !== undefined ? 'ENCRYPTION_KEY' : `the key file ${config.keyFile} (KEY_FILE)`}\n`,
    );
    return 0;
  },
};
