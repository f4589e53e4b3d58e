// Developer applications and bots: creation and their credentials. The operator surface, the CLI,
// the developer site and the assistant all go through this service, which applies the rules of
// lib/input-rules.ts to what they pass.
import type { Db } from '../../db/connect.js';
import type { UnitOfWork, Work } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import { sha256Hex, type SecretBox } from '../../lib/crypto.js';
import * as rules from '../../lib/input-rules.js';
import { newApiKey, newAppId, newAppSecret, newBotUserId, newEvmAddress } from '../../lib/ids.js';
import { appKey, keyResetKey } from '../../lib/invalidation.js';
import { botIdOfApp, countBotsOf, insertBot } from '../bots/index.js';
import { telegramIdOf, telegramToken } from '../telegram/index.js';
import { setWallet, upsertUser, usersExist } from '../users/index.js';
import { countAppsOf, findApp, insertApp, lockOwner, setApiKey, setAppSecret } from './repo.js';

export const MAX_BOTS_PER_OWNER = 5;
/** Applications for login and payment per account (bots are counted apart): each is listed on the developer site's home. */
export const MAX_APPS_PER_OWNER = 20;

export interface IssuedCredentials {
  app_id: string;
  api_key: string;
  app_secret: string;
}

export interface NewAppInput {
  owner_user_id: string;
  name: string;
  redirect_uris: readonly string[];
}

export interface NewBotInput {
  owner_user_id: string;
  name: string;
  description?: string | undefined;
}

export interface NewBot extends IssuedCredentials {
  bot_user_id: string;
  evm_address: string;
  /** `<bot id>:<App Key>` for Telegram libraries. */
  telegram_token: string;
}

export class AppsService {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly work: UnitOfWork,
  ) {}

  private sealKey(apiKey: string) {
    return { api_key_hash: sha256Hex(apiKey), api_key_enc: this.box.seal(apiKey) };
  }

  private credentials() {
    const apiKey = newApiKey();
    const appSecret = newAppSecret();
    return {
      plain: { app_id: newAppId(), api_key: apiKey, app_secret: appSecret },
      stored: { ...this.sealKey(apiKey), app_secret_enc: this.box.seal(appSecret) },
    };
  }

  createApp(input: NewAppInput): Promise<IssuedCredentials> {
    return this.work.run((w) => this.createAppIn(w, input));
  }

  async createAppIn(w: Work, input: NewAppInput): Promise<IssuedCredentials> {
    const name = rules.name(input.name);
    const redirectUris = rules.redirectUris(input.redirect_uris);
    const { plain, stored } = this.credentials();
    await lockOwner(w.tx, this.db.dialect, input.owner_user_id);
    if (!(await usersExist(w.tx, [input.owner_user_id]))) throw new AppError(Errors.unknownUser);
    if ((await countAppsOf(w.tx, input.owner_user_id)) >= MAX_APPS_PER_OWNER)
      throw new AppError(Errors.appLimitReached);
    await insertApp(
      w.tx,
      { app_id: plain.app_id, kind: 'app', owner_user_id: input.owner_user_id, name, ...stored },
      redirectUris,
      w.now,
    );
    return plain;
  }

  /** A bot is also a user: level 1, an EVM address as its wallet on chain 1, open privacy settings. */
  createBot(input: NewBotInput): Promise<NewBot> {
    return this.work.run((w) => this.createBotIn(w, input));
  }

  async createBotIn(w: Work, input: NewBotInput): Promise<NewBot> {
    const { tx, now } = w;
    const name = rules.name(input.name);
    const description = rules.description(input.description ?? '');
    const { plain, stored } = this.credentials();
    const botUserId = newBotUserId();
    const evmAddress = newEvmAddress();
    await lockOwner(tx, this.db.dialect, input.owner_user_id);
    if (!(await usersExist(tx, [input.owner_user_id]))) throw new AppError(Errors.unknownUser);
    await this.assertBotRoom(w, input.owner_user_id);
    // A new row (isNew): an id some user already had would keep that user's is_bot 0, and a bot
    // must be marked one before it joins a group (group_members.is_bot is copied from it).
    await upsertUser(
      tx,
      {
        user_id: botUserId,
        name,
        wallet_address: evmAddress,
        avatar: '',
        level: 1,
        level_icon: '',
        is_bot: 1,
      },
      now,
      true,
    );
    await setWallet(tx, botUserId, 1, evmAddress);
    await insertApp(
      tx,
      { app_id: plain.app_id, kind: 'bot', owner_user_id: input.owner_user_id, name, ...stored },
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
        description,
      },
      now,
    );
    // The bot's number was assigned with its user row.
    const botNumber = (await telegramIdOf(tx, botUserId)) ?? 0;
    return {
      bot_user_id: botUserId,
      ...plain,
      evm_address: evmAddress,
      telegram_token: telegramToken(botNumber, plain.api_key),
    };
  }

  /** Refuses (bot_limit_reached) when the owner already has the most bots an account may have. */
  async assertBotRoom({ tx }: Work, ownerUserId: string): Promise<void> {
    if ((await countBotsOf(tx, ownerUserId)) >= MAX_BOTS_PER_OWNER) throw new AppError(Errors.botLimitReached);
  }

  /**
   * A new App Key; the old one stops working at once, on every instance: for new calls (the
   * credential caches drop it) and for a bot's getUpdates already held with it.
   */
  async resetKeyIn(w: Work, appId: string): Promise<string> {
    const apiKey = newApiKey();
    if (!(await setApiKey(w.tx, appId, this.sealKey(apiKey), w.now))) throw new AppError(Errors.unknownApp);
    w.touch(appKey(appId));
    const botId = await botIdOfApp(w.tx, appId);
    if (botId !== undefined) w.touch(keyResetKey(botId));
    return apiKey;
  }

  /** A new App Secret; signatures and token calls with the old one fail at once. */
  async resetSecretIn(w: Work, appId: string): Promise<string> {
    const secret = newAppSecret();
    if (!(await setAppSecret(w.tx, appId, this.box.seal(secret), w.now))) throw new AppError(Errors.unknownApp);
    w.touch(appKey(appId));
    return secret;
  }

  /** The App Key in clear, for the app's owner. */
  revealKey(app: { api_key_enc: string }): string {
    return this.box.open(app.api_key_enc);
  }

  /** The App Key and App Secret in clear, for the demo's printout. */
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
