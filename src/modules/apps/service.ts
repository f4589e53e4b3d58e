// Developer applications and bots: creation and their credentials. Both the operator surface and
// (later) the developer site and the assistant go through this service.
import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';
import { AppError, Errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex, type SecretBox } from '../../lib/crypto.js';
import { newApiKey, newAppId, newAppSecret, newBotUserId, newEvmAddress } from '../../lib/ids.js';
import { insertBot, countBotsOf } from '../bots/repo.js';
import { setWallet, upsertUser, usersExist } from '../users/repo.js';
import { findApp, insertApp } from './repo.js';

export const MAX_BOTS_PER_OWNER = 5;

export interface IssuedCredentials {
  app_id: string;
  api_key: string;
  app_secret: string;
}

export class AppsService {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  private credentials() {
    const apiKey = newApiKey();
    const appSecret = newAppSecret();
    return {
      plain: { app_id: newAppId(), api_key: apiKey, app_secret: appSecret },
      stored: {
        api_key_hash: sha256Hex(apiKey),
        api_key_enc: this.box.seal(apiKey),
        app_secret_enc: this.box.seal(appSecret),
      },
    };
  }

  async createApp(input: {
    owner_user_id: string;
    name: string;
    redirect_uris: readonly string[];
  }): Promise<IssuedCredentials> {
    const now = this.clock.now();
    const { plain, stored } = this.credentials();
    await this.db.k.transaction().execute(async (tx) => {
      if (!(await usersExist(tx, [input.owner_user_id]))) throw new AppError(Errors.unknownUser);
      await insertApp(
        tx,
        { app_id: plain.app_id, kind: 'app', owner_user_id: input.owner_user_id, name: input.name, ...stored },
        input.redirect_uris,
        now,
      );
    });
    return plain;
  }

  /** A bot is also a user: level 1, an EVM address as its wallet on chain 1, open privacy settings. */
  async createBot(input: { owner_user_id: string; name: string; description?: string }) {
    const now = this.clock.now();
    const { plain, stored } = this.credentials();
    const botUserId = newBotUserId();
    const evmAddress = newEvmAddress();
    await this.db.k.transaction().execute(async (tx) => {
      if (this.db.dialect === 'postgres') {
        // Serialises bot creation per owner, so two racing requests cannot both take the fifth place.
        await sql`select pg_advisory_xact_lock(hashtext(${input.owner_user_id}))`.execute(tx);
      }
      if (!(await usersExist(tx, [input.owner_user_id]))) throw new AppError(Errors.unknownUser);
      if ((await countBotsOf(tx, input.owner_user_id)) >= MAX_BOTS_PER_OWNER)
        throw new AppError(Errors.botLimitReached);
      await upsertUser(
        tx,
        {
          user_id: botUserId,
          name: input.name,
          wallet_address: evmAddress,
          avatar: '',
          level: 1,
          level_icon: '',
          is_bot: 1,
        },
        now,
      );
      await setWallet(tx, botUserId, 1, evmAddress);
      await insertApp(
        tx,
        { app_id: plain.app_id, kind: 'bot', owner_user_id: input.owner_user_id, name: input.name, ...stored },
        [],
        now,
      );
      await insertBot(
        tx,
        {
          bot_user_id: botUserId,
          app_id: plain.app_id,
          owner_user_id: input.owner_user_id,
          evm_address: evmAddress,
          description: input.description ?? '',
        },
        now,
      );
    });
    return { bot_user_id: botUserId, ...plain, evm_address: evmAddress };
  }

  /** The App Key and App Secret in clear, for the app's owner (developer site, demo). */
  async revealCredentials(appId: string): Promise<IssuedCredentials> {
    const app = await findApp(this.db.k, appId);
    if (app === undefined) throw new AppError(Errors.unknownApplication);
    return {
      app_id: app.app_id,
      api_key: this.box.open(app.api_key_enc),
      app_secret: this.box.open(app.app_secret_enc),
    };
  }
}
