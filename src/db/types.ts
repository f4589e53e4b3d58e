// Row shapes of every table, as Kysely sees them. Booleans are stored as 0/1 and instants as
// unix milliseconds on both dialects, so one code path reads the same values everywhere.
import type { Generated, Selectable } from 'kysely';

type Flag = 0 | 1;
/** A counter column: starts at 0 in SQL, so inserts may leave it out. */
type Counter = Generated<number>;

export interface MetaTable {
  key: string;
  value: string;
}

export interface UsersTable {
  user_id: string;
  name: string;
  /** The wallet last given for the user (any chain); per-chain wallets live in `wallets`. */
  wallet_address: string;
  avatar: string;
  level: number;
  level_icon: string;
  is_bot: Flag;
  created_at: number;
  updated_at: number;
}

export interface WalletsTable {
  chain_id: number;
  /** Lower-cased address: EVM addresses compare case-insensitively. */
  address_norm: string;
  address: string;
  user_id: string;
}

/** Counters kept by events so that every statistics read is one row lookup. */
export interface UserStatsTable {
  user_id: string;
  followers: Counter;
  following: Counter;
  likes_received: Counter;
  likes_given: Counter;
  boxes_sent: Counter;
  boxes_sent_cents: Counter;
  boxes_received: Counter;
  boxes_received_cents: Counter;
}

export interface FollowsTable {
  seq: Generated<number>;
  follower_id: string;
  followed_id: string;
  created_at: number;
}

export interface GroupsTable {
  group_id: string;
  name: string;
  invite_url: string;
  invite_url_norm: string;
  pic: string;
  is_charge: Flag;
  subchannel_number: number;
  maximum: number;
  created_at: string;
  owner_id: string | null;
  member_count: Counter;
  boxes_sent: Counter;
  boxes_sent_cents: Counter;
}

export type GroupRole = 'member' | 'moderator' | 'admin';

export interface GroupMembersTable {
  seq: Generated<number>;
  group_id: string;
  user_id: string;
  role: GroupRole;
  invited_by: string | null;
  joined_at: number;
  /** The member's users.is_bot, copied when the row is inserted (0012): a group's bots by index. */
  is_bot: Flag;
}

export interface UserGroupStatsTable {
  user_id: string;
  group_id: string;
  votes: Counter;
  draws_initiated: Counter;
  draws_entered: Counter;
  draws_won: Counter;
  boxes_received: Counter;
}

export interface MomentsTable {
  moment_id: string;
  author_id: string;
  like_count: Counter;
  created_at: number;
}

export interface MomentLikesTable {
  seq: Generated<number>;
  moment_id: string;
  user_id: string;
  created_at: number;
}

export interface VotesTable {
  vote_id: string;
  group_id: string;
}

export interface VoteCastsTable {
  vote_id: string;
  user_id: string;
  created_at: number;
}

export interface LuckyDrawsTable {
  draw_id: string;
  group_id: string;
  initiator_id: string;
  created_at: number;
}

export interface LuckyDrawEntriesTable {
  draw_id: string;
  user_id: string;
  won: Flag;
  created_at: number;
}

export interface LuckyBoxesTable {
  box_id: string;
  sender_id: string;
  group_id: string | null;
  amount_cents: number;
  count: number;
  claimed_count: Counter;
  claimed_cents: Counter;
  created_at: number;
}

export interface LuckyBoxClaimsTable {
  box_id: string;
  user_id: string;
  amount_cents: number;
  created_at: number;
}

export interface ChatMessagesTable {
  message_id: string;
  chat_type: 'private' | 'group';
  from_user_id: string;
  group_id: string | null;
  to_user_id: string | null;
  kind: string;
  text: string;
  mention_user_ids: string;
  created_at: number;
}

export type AppKind = 'app' | 'bot';

export interface AppsTable {
  app_id: string;
  kind: AppKind;
  owner_user_id: string;
  name: string;
  /** SHA-256 of the App Key: requests are authenticated by this lookup. */
  api_key_hash: string;
  /** The App Key itself, encrypted, so the developer site can show it again. */
  api_key_enc: string;
  app_secret_enc: string;
  disabled: Flag;
  created_at: number;
  updated_at: number;
}

export interface AppRedirectUrisTable {
  app_id: string;
  uri: string;
}

export type PrivateMessagePolicy = 'everyone' | 'following' | 'friends';
export type GroupInvitePolicy = 'everyone' | 'following';
/** `telegram`: the body is a Telegram Update (telegram-api.md setWebhook). */
export type PayloadFormat = 'update' | 'flat' | 'telegram';

export interface BotsTable {
  bot_user_id: string;
  app_id: string;
  owner_user_id: string;
  description: string;
  evm_address: string;
  private_message_policy: PrivateMessagePolicy;
  group_invite_policy: GroupInvitePolicy;
  webhook_url: string | null;
  webhook_key_enc: string | null;
  /**
   * The Telegram setWebhook's max_connections, brought into 1 to 100 (0014); null when not given
   * there (the native setWebhook takes none). Reported by the Telegram getWebhookInfo only:
   * deliveries go one at a time whatever it is.
   */
  webhook_max_connections: number | null;
  /**
   * The bot's consecutive failed webhook attempts, whichever Updates they were of (0015): the
   * backoff follows it, so Updates that become the head behind a dropped one do not start the
   * schedule again. Null or 0: none since the last success, or since the Webhook URL was set.
   */
  webhook_fail_streak: number | null;
  /** When the bot's next webhook attempt may start (ms), set by a failed one (0015); null: at once. */
  webhook_not_before: number | null;
  payload_format: PayloadFormat;
  /** Last Update id handed out for this bot; ids rise by one per bot. */
  last_update_id: number;
  last_error_at: number | null;
  last_error_message: string | null;
  created_at: number;
  /** The Telegram surface's allowed_updates (JSON array), kept until changed; null: every kind. */
  allowed_updates: string | null;
}

export type Permission = 'listen_group_messages' | 'subscription_account' | 'publish_bot';

export interface BotPermissionsTable {
  bot_user_id: string;
  permission: Permission;
  granted_at: number;
}

export type ApplicationStatus = 'pending' | 'approved' | 'rejected';

export interface PermissionApplicationsTable {
  id: string;
  bot_user_id: string;
  permission: Permission;
  status: ApplicationStatus;
  note: string | null;
  created_at: number;
  decided_at: number | null;
}

export interface ProcessedEventsTable {
  event_id: string;
  type: string;
  status: 'applied' | 'refused';
  reason: string | null;
  processed_at: number;
}

/** What bots and apps sent (the operator's outbox); `seq` is the feed's cursor. */
export interface OutboxMessagesTable {
  seq: Generated<number>;
  message_id: string;
  chat_type: 'private' | 'group';
  group_id: string | null;
  to_user_id: string | null;
  from_user_id: string;
  app_id: string | null;
  object_name: string;
  title: string | null;
  content: string;
  /** JSON of the parsed rich-text layout, when the content is rich text. */
  normalized: string | null;
  mention_user_ids: string;
  reply_markup: string | null;
  created_at: number;
  edited_at: number | null;
  /** The edit feed's cursor: drawn by the store (0009) each time the message is edited; null until then. */
  edit_seq: number | null;
  /** Telegram-compatible message id, unique within the chat (shared with chat_messages). */
  telegram_message_id: Generated<number>;
}

export interface UpdatesTable {
  seq: Generated<number>;
  bot_user_id: string;
  update_id: number;
  /** JSON of the Update as the bot receives it. */
  payload: string;
  created_at: number;
  /** Webhook dispatch state: next attempt time and attempts so far. */
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  /** Until when an attempt under way holds it (0010); null when none does. A redelivery waits for it to end. */
  leased_until: number | null;
}

export interface WebhookDeliveriesTable {
  seq: Generated<number>;
  bot_user_id: string;
  update_id: number;
  url: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: number;
  /** The Update's stored JSON, kept on failed attempts so they can be redelivered after expiry. */
  payload: string | null;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  status_code: number;
  body: string;
  created_at: number;
}

export interface SessionsTable {
  session_hash: string;
  user_id: string;
  expires_at: number;
  created_at: number;
}

export interface OauthCodesTable {
  code_hash: string;
  app_id: string;
  user_id: string;
  redirect_uri: string;
  scope: string;
  family_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
  /** PKCE S256 challenge (0006); null when the request gave none. */
  code_challenge: string | null;
}

export interface TokenFamiliesTable {
  family_id: string;
  app_id: string;
  user_id: string;
  scope: string;
  revoked_at: number | null;
  created_at: number;
  /** The latest expiry of a refresh token issued in it (0013): the sweep's bound. */
  expires_at: number;
}

export interface RefreshTokensTable {
  token_hash: string;
  family_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export type PaymentStatus = 'authorized' | 'completed' | 'failed';

export interface PaymentOrdersTable {
  serial_id: string;
  app_id: string;
  authorizing_user_id: string;
  payer_user_id: string;
  receiver_user_id: string;
  amount_cents: number;
  pay_type: 'send' | 'receive';
  pay_info: string;
  token_hash: string;
  token_expires_at: number;
  status: PaymentStatus;
  result_code: string | null;
  created_at: number;
  completed_at: number | null;
}

export type AccountKind = 'user' | 'issuance';

export interface LedgerAccountsTable {
  account_id: string;
  kind: AccountKind;
  user_id: string | null;
  /** Integer hundredths of a point. Only the issuance account may go below zero. */
  balance_cents: Counter;
  updated_at: number;
}

export interface LedgerTransactionsTable {
  txn_id: string;
  kind: 'credit' | 'transfer';
  reference: string;
  created_at: number;
}

export interface LedgerEntriesTable {
  seq: Generated<number>;
  txn_id: string;
  account_id: string;
  amount_cents: number;
  created_at: number;
}

export interface CallbackQueriesTable {
  seq: Generated<number>;
  callback_id: string;
  bot_user_id: string;
  user_id: string;
  message_id: string;
  data: string;
  created_at: number;
  answered_at: number | null;
  answer_text: string | null;
  show_alert: Generated<Flag>;
}

/** Telegram setMyCommands: a bot's commands per scope (canonical JSON) and language ('' = any). */
export interface BotCommandsTable {
  bot_user_id: string;
  scope: string;
  language_code: string;
  commands: string;
  updated_at: number;
}

export interface AssistantConversationsTable {
  user_id: string;
  state: string;
  updated_at: number;
}

export interface DB {
  meta: MetaTable;
  /** Plus the Telegram-compatible id (positive), assigned by the store on insert (migration 0005). */
  users: UsersTable & { telegram_id: Generated<number> };
  wallets: WalletsTable;
  user_stats: UserStatsTable;
  follows: FollowsTable;
  /** Plus the Telegram-compatible id (negative), assigned by the store on insert (migration 0005). */
  groups: GroupsTable & { telegram_id: Generated<number> };
  group_members: GroupMembersTable;
  user_group_stats: UserGroupStatsTable;
  moments: MomentsTable;
  moment_likes: MomentLikesTable;
  votes: VotesTable;
  vote_casts: VoteCastsTable;
  lucky_draws: LuckyDrawsTable;
  lucky_draw_entries: LuckyDrawEntriesTable;
  lucky_boxes: LuckyBoxesTable;
  lucky_box_claims: LuckyBoxClaimsTable;
  /** The Telegram message id is the store's (migration 0005); events insert rows without it. */
  chat_messages: ChatMessagesTable & { telegram_message_id: Generated<number> };
  apps: AppsTable;
  app_redirect_uris: AppRedirectUrisTable;
  bots: BotsTable;
  bot_permissions: BotPermissionsTable;
  permission_applications: PermissionApplicationsTable;
  processed_events: ProcessedEventsTable;
  outbox_messages: OutboxMessagesTable;
  updates: UpdatesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  idempotency_keys: IdempotencyKeysTable;
  sessions: SessionsTable;
  oauth_codes: OauthCodesTable;
  token_families: TokenFamiliesTable;
  refresh_tokens: RefreshTokensTable;
  payment_orders: PaymentOrdersTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_transactions: LedgerTransactionsTable;
  ledger_entries: LedgerEntriesTable;
  assistant_conversations: AssistantConversationsTable;
  callback_queries: CallbackQueriesTable;
  bot_commands: BotCommandsTable;
  console_sessions: ConsoleSessionsTable;
  audit_log: AuditLogTable;
}

/** Operator console sign-ins (0007): the cookie's token is kept as a hash. */
export interface ConsoleSessionsTable {
  session_hash: string;
  operator_name: string;
  created_at: number;
  expires_at: number;
}

/** Operator actions (0007): who did what, from the console or the operator API. */
export interface AuditLogTable {
  seq: Generated<number>;
  actor: string;
  action: string;
  target: string;
  detail: string;
  created_at: number;
}

export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type AppRow = Selectable<AppsTable>;
