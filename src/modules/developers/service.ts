// Bot administration for developers: the one service under both front doors, the developer site
// (/developers/) and the bot-creation assistant's chat. Every rule lives here or in the services
// it calls: ownership, the five-bot limit, what a name or URL may be, that bots cannot be deleted.
// Writes take the caller's Work (its transaction): the site opens one per request, the assistant
// shares the transaction of the event batch its command arrived in.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import type {
  AppKind,
  DB,
  GroupInvitePolicy,
  PayloadFormat,
  Permission,
  PrivateMessagePolicy,
  WebhookDeliveriesTable,
} from '../../db/types.js';
import type { Work } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import { userKey } from '../../lib/invalidation.js';
import * as rules from '../../lib/input-rules.js';
import {
  appsOf,
  type AppsService,
  type NewBot,
  redirectUris as storedRedirectUris,
  replaceRedirectUris,
} from '../apps/index.js';
import { type ApplicationView, type BotsService, permissionsOf } from '../bots/index.js';
import type { DeliveryService, VettedWebhookUrl } from '../delivery/index.js';
import { telegramToken } from '../telegram/index.js';
import * as repo from './repo.js';

const RECENT_DELIVERIES = 20;

export interface AppSummary {
  app_id: string;
  kind: 'app' | 'bot';
  name: string;
  bot_user_id: string | null;
  /** How a bot receives Updates; null for an app. */
  mode: ReceivingMode | null;
  created_at: number;
}

export interface AppView {
  app_id: string;
  name: string;
  api_key: string;
  redirect_uris: string[];
  created_at: number;
}

export type ReceivingMode = 'webhook' | 'polling';

export interface BotView {
  bot_user_id: string;
  app_id: string;
  name: string;
  avatar: string;
  description: string;
  level: number;
  evm_address: string;
  api_key: string;
  /** `<bot id>:<App Key>` for Telegram libraries. */
  telegram_token: string;
  mode: ReceivingMode;
  webhook_url: string | null;
  payload_format: PayloadFormat;
  last_error: { at: number; message: string } | null;
  /** The last delivery that got through: a later one resolves last_error. */
  last_success_at: number | null;
  private_messages: PrivateMessagePolicy;
  group_invites: GroupInvitePolicy;
  permissions: Permission[];
  applications: ApplicationView[];
  created_at: number;
}

export type DeliveryState = 'delivered' | 'failed' | 'redelivered';

/** One attempt of the delivery log. */
export type DeliveryView = Pick<
  WebhookDeliveriesTable,
  'update_id' | 'url' | 'attempt' | 'status_code' | 'error' | 'duration_ms' | 'created_at'
> & {
  id: number;
  /** `redelivered`: failed, but a later attempt of the same Update got through. */
  state: DeliveryState;
};

export interface ProfileChange {
  name?: string | undefined;
  avatar?: string | undefined;
  description?: string | undefined;
}

export interface PrivacyChange {
  private_messages?: PrivateMessagePolicy | undefined;
  group_invites?: GroupInvitePolicy | undefined;
}

const modeOf = (webhookUrl: string | null): ReceivingMode => (webhookUrl === null ? 'polling' : 'webhook');

export class DevelopersService {
  constructor(
    private readonly db: Db,
    private readonly apps: AppsService,
    private readonly bots: BotsService,
    private readonly delivery: DeliveryService,
  ) {}

  // Reads: `q` is the caller's transaction when there is one (the assistant), else the store.

  async overview(ownerUserId: string, q: Kysely<DB> = this.db.k): Promise<AppSummary[]> {
    return (await appsOf(q, ownerUserId)).map((a) => ({
      app_id: a.app_id,
      kind: a.kind,
      name: a.name,
      bot_user_id: a.bot_user_id,
      mode: a.bot_user_id === null ? null : modeOf(a.webhook_url),
      created_at: a.created_at,
    }));
  }

  async app(ownerUserId: string, appId: string, q: Kysely<DB> = this.db.k): Promise<AppView> {
    const app = await this.ownedApp(q, ownerUserId, appId, 'app');
    return {
      app_id: app.app_id,
      name: app.name,
      api_key: this.apps.revealKey(app),
      redirect_uris: await storedRedirectUris(q, this.db.dialect, appId),
      created_at: app.created_at,
    };
  }

  async bot(ownerUserId: string, botUserId: string, q: Kysely<DB> = this.db.k): Promise<BotView> {
    const b = await this.ownedBot(q, ownerUserId, botUserId);
    const apiKey = this.apps.revealKey(b);
    return {
      bot_user_id: b.bot_user_id,
      app_id: b.app_id,
      name: b.name,
      avatar: b.avatar,
      description: b.description,
      level: b.level,
      evm_address: b.evm_address,
      api_key: apiKey,
      telegram_token: telegramToken(b.telegram_id, apiKey),
      mode: modeOf(b.webhook_url),
      webhook_url: b.webhook_url,
      payload_format: b.payload_format,
      last_error: b.last_error_at === null ? null : { at: b.last_error_at, message: b.last_error_message ?? '' },
      last_success_at: await repo.lastSuccessAt(q, botUserId),
      private_messages: b.private_message_policy,
      group_invites: b.group_invite_policy,
      permissions: await permissionsOf(q, botUserId),
      applications: (await this.bots.list({ botUserId }, q)).reverse(),
      created_at: b.created_at,
    };
  }

  async deliveries(ownerUserId: string, botUserId: string, q: Kysely<DB> = this.db.k): Promise<DeliveryView[]> {
    await this.ownedBot(q, ownerUserId, botUserId);
    return (await repo.recentDeliveries(q, botUserId, RECENT_DELIVERIES)).map((d) => ({
      id: d.seq,
      update_id: d.update_id,
      url: d.url,
      attempt: d.attempt,
      status_code: d.status_code,
      error: d.error,
      duration_ms: d.duration_ms,
      created_at: d.created_at,
      state: d.error === null ? 'delivered' : d.superseded === 1 ? 'redelivered' : 'failed',
    }));
  }

  // Writes.

  createApp(w: Work, ownerUserId: string, input: { name: string; redirect_uris: readonly string[] }) {
    return this.apps.createAppIn(w, { owner_user_id: ownerUserId, ...input });
  }

  createBot(w: Work, ownerUserId: string, input: { name: string; description?: string }): Promise<NewBot> {
    return this.apps.createBotIn(w, { owner_user_id: ownerUserId, ...input });
  }

  /** Lets a front door say at the start of a conversation that no more bots can be made. */
  assertBotRoom(w: Work, ownerUserId: string): Promise<void> {
    return this.apps.assertBotRoom(w, ownerUserId);
  }

  /** Refused always: the description says created bots cannot be deleted. */
  async deleteBot(w: Work, ownerUserId: string, botUserId: string): Promise<never> {
    await this.ownedBot(w.tx, ownerUserId, botUserId);
    throw new AppError(Errors.botNotDeletable);
  }

  async resetKey(w: Work, ownerUserId: string, appId: string, kind: AppKind): Promise<string> {
    await this.ownedApp(w.tx, ownerUserId, appId, kind);
    return this.apps.resetKeyIn(w, appId);
  }

  async resetSecret(w: Work, ownerUserId: string, appId: string, kind: AppKind): Promise<string> {
    await this.ownedApp(w.tx, ownerUserId, appId, kind);
    return this.apps.resetSecretIn(w, appId);
  }

  async setRedirectUris(w: Work, ownerUserId: string, appId: string, uris: readonly string[]): Promise<string[]> {
    await this.ownedApp(w.tx, ownerUserId, appId, 'app');
    const checked = rules.redirectUris(uris);
    await replaceRedirectUris(w.tx, appId, checked);
    return storedRedirectUris(w.tx, this.db.dialect, appId);
  }

  async setProfile(w: Work, ownerUserId: string, botUserId: string, change: ProfileChange): Promise<void> {
    const bot = await this.ownedBot(w.tx, ownerUserId, botUserId);
    await repo.setProfile(
      w.tx,
      bot,
      {
        name: change.name === undefined ? bot.name : rules.name(change.name),
        avatar: change.avatar === undefined ? bot.avatar : rules.avatar(change.avatar),
        description: change.description === undefined ? bot.description : rules.description(change.description),
      },
      w.now,
    );
    w.touch(userKey(botUserId));
  }

  async setPrivacy(w: Work, ownerUserId: string, botUserId: string, change: PrivacyChange): Promise<void> {
    const bot = await this.ownedBot(w.tx, ownerUserId, botUserId);
    await repo.setPrivacy(w.tx, botUserId, {
      private_message_policy: change.private_messages ?? bot.private_message_policy,
      group_invite_policy: change.group_invites ?? bot.group_invite_policy,
    });
  }

  /** Webhook mode, with a new Webhook Key (shown once, like the App Secret). */
  async setWebhook(
    w: Work,
    ownerUserId: string,
    botUserId: string,
    url: VettedWebhookUrl,
    payloadFormat?: PayloadFormat,
  ) {
    await this.ownedBot(w.tx, ownerUserId, botUserId);
    return this.delivery.setWebhookIn(w, botUserId, url, { payloadFormat });
  }

  async clearWebhook(w: Work, ownerUserId: string, botUserId: string): Promise<void> {
    await this.ownedBot(w.tx, ownerUserId, botUserId);
    await this.delivery.deleteWebhookIn(w, botUserId, false);
  }

  async apply(w: Work, ownerUserId: string, botUserId: string, permission: Permission): Promise<ApplicationView> {
    await this.ownedBot(w.tx, ownerUserId, botUserId);
    return this.bots.applyIn(w, botUserId, permission);
  }

  /**
   * Sends a failed delivery's Update again, now: at once if it is still queued (skipping the
   * backoff), else queued anew from the copy the failed attempt kept.
   */
  async redeliver(w: Work, ownerUserId: string, botUserId: string, deliveryId: number): Promise<void> {
    await this.delivery.redeliverIn(w, await this.ownedBot(w.tx, ownerUserId, botUserId), deliveryId);
  }

  private async ownedBot(q: Kysely<DB>, ownerUserId: string, botUserId: string) {
    const bot = await repo.ownedBot(q, ownerUserId, botUserId);
    if (bot === undefined) throw new AppError(Errors.unknownBot);
    return bot;
  }

  /**
   * The developer's app of that kind. A bot's app is reached through its bot only: as an app its
   * redirect URIs would make the bot a login client, which a bot is not.
   */
  private async ownedApp(q: Kysely<DB>, ownerUserId: string, appId: string, kind: AppKind) {
    const app = await repo.ownedApp(q, ownerUserId, appId);
    if (app === undefined || app.kind !== kind) throw new AppError(Errors.unknownApp);
    return app;
  }
}
