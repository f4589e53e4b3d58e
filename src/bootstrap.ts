// Opens the store, migrates it and wires the services: shared by the server and the CLI.
import type { Config } from './config.js';
import { openDb } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { loadEncryptionKey } from './lib/keys.js';
import { ensureAdminToken, type AdminToken } from './modules/admin/service.js';
import { createServices, type Services } from './services.js';

export interface Booted {
  services: Services;
  adminToken: AdminToken;
  close(): Promise<void>;
}

export async function boot(config: Config): Promise<Booted> {
  const db = await openDb(config.databaseUrl);
  try {
    await migrate(db);
    const adminToken = await ensureAdminToken(db.k, config.adminToken);
    const services = createServices({
      config,
      db,
      encryptionKey: loadEncryptionKey(config),
      adminTokenHash: adminToken.hash,
    });
    return {
      services,
      adminToken,
      close: async () => {
        await services.shared.close();
        await db.close();
      },
    };
  } catch (e) {
    await db.close();
    throw e;
  }
}
