// The whole platform's data model. One migration set runs on SQLite and PostgreSQL; the only
// dialect difference is how an auto-incrementing sequence column is declared.
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

type Table = CreateTableBuilder<string, string>;

export function initialMigration(dialect: Dialect) {
  const seq = (t: Table): Table =>
    dialect === 'sqlite'
      ? t.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
      : t.addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity());
  const req = (c: ColumnDefinitionBuilder) => c.notNull();
  const zero = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0);
  const text = (t: Table, ...names: string[]): Table => names.reduce((acc, n) => acc.addColumn(n, 'text', req), t);
  const counters = (t: Table, ...names: string[]): Table =>
    names.reduce((acc, n) => acc.addColumn(n, 'bigint', zero), t);

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const s = db.schema;
      await text(s.createTable('meta'), 'key', 'value').addPrimaryKeyConstraint('meta_pk', ['key']).execute();

      await text(s.createTable('users'), 'user_id', 'name', 'wallet_address', 'avatar', 'level_icon')
        .addColumn('level', 'integer', zero)
        .addColumn('is_bot', 'integer', zero)
        .addColumn('created_at', 'bigint', req)
        .addColumn('updated_at', 'bigint', req)
        .addPrimaryKeyConstraint('users_pk', ['user_id'])
        .execute();

      await text(s.createTable('wallets').addColumn('chain_id', 'integer', req), 'address_norm', 'address', 'user_id')
        .addPrimaryKeyConstraint('wallets_pk', ['chain_id', 'address_norm'])
        .execute();
      await s.createIndex('wallets_user').on('wallets').columns(['user_id', 'chain_id']).execute();

      await counters(
        text(s.createTable('user_stats'), 'user_id'),
        'followers',
        'following',
        'likes_received',
        'likes_given',
        'boxes_sent',
        'boxes_sent_cents',
        'boxes_received',
        'boxes_received_cents',
      )
        .addPrimaryKeyConstraint('user_stats_pk', ['user_id'])
        .execute();

      await text(seq(s.createTable('follows')), 'follower_id', 'followed_id')
        .addColumn('created_at', 'bigint', req)
        .addUniqueConstraint('follows_edge', ['follower_id', 'followed_id'])
        .execute();
      await s.createIndex('follows_followed').on('follows').columns(['followed_id', 'seq']).execute();

      await counters(
        text(s.createTable('groups'), 'group_id', 'name', 'invite_url', 'invite_url_norm', 'pic', 'created_at')
          .addColumn('is_charge', 'integer', zero)
          .addColumn('subchannel_number', 'integer', zero)
          .addColumn('maximum', 'integer', zero)
          .addColumn('owner_id', 'text'),
        'member_count',
        'boxes_sent',
        'boxes_sent_cents',
      )
        .addPrimaryKeyConstraint('groups_pk', ['group_id'])
        .addUniqueConstraint('groups_invite_url', ['invite_url_norm'])
        .execute();

      await text(seq(s.createTable('group_members')), 'group_id', 'user_id', 'role')
        .addColumn('invited_by', 'text')
        .addColumn('joined_at', 'bigint', req)
        .addUniqueConstraint('group_members_pair', ['group_id', 'user_id'])
        .execute();
      await s.createIndex('group_members_role').on('group_members').columns(['group_id', 'role', 'seq']).execute();
      await s.createIndex('group_members_user').on('group_members').columns(['user_id']).execute();

      await counters(
        text(s.createTable('user_group_stats'), 'user_id', 'group_id'),
        'votes',
        'draws_initiated',
        'draws_entered',
        'draws_won',
        'boxes_received',
      )
        .addPrimaryKeyConstraint('user_group_stats_pk', ['user_id', 'group_id'])
        .execute();

      await counters(text(s.createTable('moments'), 'moment_id', 'author_id'), 'like_count')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('moments_pk', ['moment_id'])
        .execute();
      await text(seq(s.createTable('moment_likes')), 'moment_id', 'user_id')
        .addColumn('created_at', 'bigint', req)
        .addUniqueConstraint('moment_likes_pair', ['moment_id', 'user_id'])
        .execute();

      await text(s.createTable('votes'), 'vote_id', 'group_id')
        .addPrimaryKeyConstraint('votes_pk', ['vote_id'])
        .execute();
      await text(s.createTable('vote_casts'), 'vote_id', 'user_id')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('vote_casts_pk', ['vote_id', 'user_id'])
        .execute();

      await text(s.createTable('lucky_draws'), 'draw_id', 'group_id', 'initiator_id')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('lucky_draws_pk', ['draw_id'])
        .execute();
      await text(s.createTable('lucky_draw_entries'), 'draw_id', 'user_id')
        .addColumn('won', 'integer', zero)
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('lucky_draw_entries_pk', ['draw_id', 'user_id'])
        .execute();

      await counters(
        text(s.createTable('lucky_boxes'), 'box_id', 'sender_id')
          .addColumn('group_id', 'text')
          .addColumn('amount_cents', 'bigint', req)
          .addColumn('count', 'integer', req),
        'claimed_count',
        'claimed_cents',
      )
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('lucky_boxes_pk', ['box_id'])
        .execute();
      await text(s.createTable('lucky_box_claims'), 'box_id', 'user_id')
        .addColumn('amount_cents', 'bigint', req)
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('lucky_box_claims_pk', ['box_id', 'user_id'])
        .execute();

      await text(
        s.createTable('chat_messages'),
        'message_id',
        'chat_type',
        'from_user_id',
        'kind',
        'text',
        'mention_user_ids',
      )
        .addColumn('group_id', 'text')
        .addColumn('to_user_id', 'text')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('chat_messages_pk', ['message_id'])
        .execute();

      await text(
        s.createTable('apps'),
        'app_id',
        'kind',
        'owner_user_id',
        'name',
        'api_key_hash',
        'api_key_enc',
        'app_secret_enc',
      )
        .addColumn('disabled', 'integer', zero)
        .addColumn('created_at', 'bigint', req)
        .addColumn('updated_at', 'bigint', req)
        .addPrimaryKeyConstraint('apps_pk', ['app_id'])
        .addUniqueConstraint('apps_api_key_hash', ['api_key_hash'])
        .execute();
      await s.createIndex('apps_owner').on('apps').columns(['owner_user_id', 'kind']).execute();
      await text(s.createTable('app_redirect_uris'), 'app_id', 'uri')
        .addPrimaryKeyConstraint('app_redirect_uris_pk', ['app_id', 'uri'])
        .execute();

      await text(
        s.createTable('bots'),
        'bot_user_id',
        'app_id',
        'owner_user_id',
        'description',
        'evm_address',
        'private_message_policy',
        'group_invite_policy',
        'payload_format',
      )
        .addColumn('webhook_url', 'text')
        .addColumn('webhook_key_enc', 'text')
        .addColumn('last_update_id', 'bigint', zero)
        .addColumn('last_error_at', 'bigint')
        .addColumn('last_error_message', 'text')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('bots_pk', ['bot_user_id'])
        .addUniqueConstraint('bots_app', ['app_id'])
        .execute();
      await s.createIndex('bots_owner').on('bots').columns(['owner_user_id']).execute();

      await text(s.createTable('bot_permissions'), 'bot_user_id', 'permission')
        .addColumn('granted_at', 'bigint', req)
        .addPrimaryKeyConstraint('bot_permissions_pk', ['bot_user_id', 'permission'])
        .execute();

      await text(s.createTable('permission_applications'), 'id', 'bot_user_id', 'permission', 'status')
        .addColumn('note', 'text')
        .addColumn('created_at', 'bigint', req)
        .addColumn('decided_at', 'bigint')
        .addPrimaryKeyConstraint('permission_applications_pk', ['id'])
        .execute();
      await s
        .createIndex('permission_applications_status')
        .on('permission_applications')
        .columns(['status', 'created_at'])
        .execute();

      await text(s.createTable('processed_events'), 'event_id', 'type', 'status')
        .addColumn('reason', 'text')
        .addColumn('processed_at', 'bigint', req)
        .addPrimaryKeyConstraint('processed_events_pk', ['event_id'])
        .execute();

      await text(
        seq(s.createTable('outbox_messages')),
        'message_id',
        'chat_type',
        'from_user_id',
        'object_name',
        'content',
      )
        .addColumn('group_id', 'text')
        .addColumn('to_user_id', 'text')
        .addColumn('app_id', 'text')
        .addColumn('title', 'text')
        .addColumn('normalized', 'text')
        .addColumn('mention_user_ids', 'text', req)
        .addColumn('reply_markup', 'text')
        .addColumn('created_at', 'bigint', req)
        .addColumn('edited_at', 'bigint')
        .addUniqueConstraint('outbox_messages_id', ['message_id'])
        .execute();

      await text(seq(s.createTable('updates')), 'bot_user_id', 'payload')
        .addColumn('update_id', 'bigint', req)
        .addColumn('created_at', 'bigint', req)
        .addColumn('attempts', 'integer', zero)
        .addColumn('next_attempt_at', 'bigint', zero)
        .addColumn('last_error', 'text')
        .addUniqueConstraint('updates_bot_update', ['bot_user_id', 'update_id'])
        .execute();
      await s.createIndex('updates_due').on('updates').columns(['next_attempt_at']).execute();

      await text(seq(s.createTable('webhook_deliveries')), 'bot_user_id', 'url')
        .addColumn('update_id', 'bigint', req)
        .addColumn('attempt', 'integer', req)
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', zero)
        .addColumn('created_at', 'bigint', req)
        .execute();
      await s.createIndex('webhook_deliveries_bot').on('webhook_deliveries').columns(['bot_user_id', 'seq']).execute();

      await text(s.createTable('idempotency_keys'), 'scope', 'key', 'body')
        .addColumn('status_code', 'integer', req)
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
        .execute();

      await text(s.createTable('sessions'), 'session_hash', 'user_id')
        .addColumn('expires_at', 'bigint', req)
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('sessions_pk', ['session_hash'])
        .execute();

      await text(s.createTable('oauth_codes'), 'code_hash', 'app_id', 'user_id', 'redirect_uri', 'scope', 'family_id')
        .addColumn('expires_at', 'bigint', req)
        .addColumn('used_at', 'bigint')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('oauth_codes_pk', ['code_hash'])
        .execute();
      await text(s.createTable('token_families'), 'family_id', 'app_id', 'user_id', 'scope')
        .addColumn('revoked_at', 'bigint')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('token_families_pk', ['family_id'])
        .execute();
      await text(s.createTable('refresh_tokens'), 'token_hash', 'family_id')
        .addColumn('expires_at', 'bigint', req)
        .addColumn('used_at', 'bigint')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('refresh_tokens_pk', ['token_hash'])
        .execute();

      await text(
        s.createTable('payment_orders'),
        'serial_id',
        'app_id',
        'authorizing_user_id',
        'payer_user_id',
        'receiver_user_id',
        'pay_type',
        'pay_info',
        'token_hash',
        'status',
      )
        .addColumn('amount_cents', 'bigint', req)
        .addColumn('token_expires_at', 'bigint', req)
        .addColumn('result_code', 'text')
        .addColumn('created_at', 'bigint', req)
        .addColumn('completed_at', 'bigint')
        .addPrimaryKeyConstraint('payment_orders_pk', ['serial_id'])
        .execute();

      await text(s.createTable('ledger_accounts'), 'account_id', 'kind')
        .addColumn('user_id', 'text')
        .addColumn('balance_cents', 'bigint', zero)
        .addColumn('updated_at', 'bigint', req)
        .addPrimaryKeyConstraint('ledger_accounts_pk', ['account_id'])
        .execute();
      await text(s.createTable('ledger_transactions'), 'txn_id', 'kind', 'reference')
        .addColumn('created_at', 'bigint', req)
        .addPrimaryKeyConstraint('ledger_transactions_pk', ['txn_id'])
        .addUniqueConstraint('ledger_transactions_ref', ['kind', 'reference'])
        .execute();
      await text(seq(s.createTable('ledger_entries')), 'txn_id', 'account_id')
        .addColumn('amount_cents', 'bigint', req)
        .addColumn('created_at', 'bigint', req)
        .execute();
      await s.createIndex('ledger_entries_account').on('ledger_entries').columns(['account_id', 'seq']).execute();

      await text(s.createTable('assistant_conversations'), 'user_id', 'state')
        .addColumn('updated_at', 'bigint', req)
        .addPrimaryKeyConstraint('assistant_conversations_pk', ['user_id'])
        .execute();
    },
  };
}
