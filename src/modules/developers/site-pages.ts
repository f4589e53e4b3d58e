// The developer site's HTML. Rendering only: site-routes.ts decides which page a request gets and
// the service decides everything else. Every interpolated value is escaped by `html`.
import { CSRF_FIELD } from '../../http/pages/csrf.js';
import { html, initial, table, type Html, type Part } from '../../http/pages/html.js';
import { MAX_BOTS_PER_OWNER } from '../apps/index.js';
import { PERMISSIONS } from '../bots/index.js';
import type { AppSummary, AppView, BotView, DeliveryView } from './service.js';
import { SITE_SHEET } from './site-style.js';

export const SITE = '/developers';

/** Who is signed in, and the CSRF token every form of the page carries. */
export interface PageContext {
  userName: string;
  userId: string;
  csrf: string;
}

export type Tone = 'ok' | 'bad' | 'warn' | 'info';
export interface Notice {
  tone: Tone;
  text: string;
}

const PERMISSION_NAMES: Record<string, string> = {
  listen_group_messages: 'Listen to group messages',
  subscription_account: 'Subscription account',
  publish_bot: 'Publish bot',
};
const PRIVATE_OPTIONS = [
  ['following', 'People the bot follows'],
  ['everyone', 'Everyone'],
  ['friends', 'Friends'],
] as const;
const INVITE_OPTIONS = [
  ['everyone', 'Everyone'],
  ['following', 'People the bot follows'],
] as const;

const when = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** The last delivery error: red while it is the latest news, neutral once a delivery got through after it. */
function lastError(bot: BotView): Part {
  const e = bot.last_error;
  if (e === null) return false;
  if (bot.last_success_at === null || bot.last_success_at < e.at) {
    return html`<p class="note bad">Last error (${when(e.at)} UTC): ${e.message}</p>`;
  }
  return html`<p class="note" role="status">
    Resolved: delivered at ${when(bot.last_success_at)} UTC, after the last error (${when(e.at)} UTC: ${e.message}).
  </p>`;
}

const signOut = (ctx: PageContext): Html =>
  html`<form method="post" action="${SITE}/sign-out" class="out">
    <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
    <button type="submit" class="secondary">Sign out</button>
  </form>`;

function layout(ctx: PageContext | undefined, title: string, body: Part): string {
  return SITE_SHEET.document(
    title,
    html`<header class="top">
        <div class="in">
          <a class="brand" href="${SITE}/">Open Platform <span>Developers</span></a>
          ${
            ctx !== undefined &&
            html`<span class="who">Signed in as <strong>${ctx.userName}</strong></span
              >${signOut(ctx)}`
          }
        </div>
      </header>
      <main>${body}</main>`,
  );
}

const notice = (n: Notice | undefined): Part =>
  n !== undefined && html`<p class="note ${n.tone === 'info' ? '' : n.tone}" role="status">${n.text}</p>`;

/** A POST form with the CSRF token. */
function form(ctx: PageContext, action: string, body: Part, label: string, style = 'primary'): Html {
  return html`<form method="post" action="${action}">
    <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
    ${body}
    <div class="actions"><button type="submit" class="${style}">${label}</button></div>
  </form>`;
}

const row = (label: string, value: Part): Html =>
  html`<div class="row">
    <dt>${label}</dt>
    <dd>${value}</dd>
  </div>`;

const modePill = (mode: AppSummary['mode']): Part =>
  mode === 'webhook'
    ? html`<span class="pill ok">Webhook</span>`
    : mode === 'polling' && html`<span class="pill">Long polling</span>`;

function badge(name: string, avatar = ''): Html {
  return avatar === ''
    ? html`<span class="badge" aria-hidden="true">${initial(name)}</span>`
    : html`<span class="badge"><img src="${avatar}" alt="" /></span>`;
}

export function homePage(ctx: PageContext, apps: readonly AppSummary[], n?: Notice): string {
  const bots = apps.filter((a) => a.kind === 'bot');
  const others = apps.filter((a) => a.kind === 'app');
  const full = bots.length >= MAX_BOTS_PER_OWNER;
  return layout(
    ctx,
    'Your apps and bots',
    html`<h1>Your apps and bots</h1>
      <p class="sub">Create bots that talk in chats, and apps that sign users in and take payments in points.</p>
      ${notice(n)}
      <div class="grid">
        <section class="card" aria-labelledby="bots">
          <h2 id="bots">Bots (${bots.length} of ${MAX_BOTS_PER_OWNER})</h2>
          ${
            bots.length === 0
              ? html`<p>No bots yet.</p>`
              : table(
                  ['Name', 'Bot id', 'Receiving'],
                  bots.map((b) => [
                    html`<a href="${SITE}/bots/${b.bot_user_id ?? ''}">${b.name}</a>`,
                    html`<code>${b.bot_user_id ?? ''}</code>`,
                    modePill(b.mode),
                  ]),
                )
          }
          <h3>New bot</h3>
          ${
            full
              ? html`<p class="note warn">
                  You own ${MAX_BOTS_PER_OWNER} bots, the most an account may have. Created bots cannot be deleted.
                </p>`
              : form(
                  ctx,
                  `${SITE}/bots`,
                  html`<label for="bot-name">Name</label>
                    <input id="bot-name" type="text" name="name" maxlength="64" required />
                    <label for="bot-description">Description</label>
                    <textarea id="bot-description" name="description" maxlength="512"></textarea>
                    <p class="fine">
                      You can own at most ${MAX_BOTS_PER_OWNER} bots. Created bots cannot be deleted.
                    </p>`,
                  'Create bot',
                )
          }
        </section>
        <section class="card" aria-labelledby="apps">
          <h2 id="apps">Apps</h2>
          ${
            others.length === 0
              ? html`<p>No apps yet.</p>`
              : table(
                  ['Name', 'App id'],
                  others.map((a) => [
                    html`<a href="${SITE}/apps/${a.app_id}">${a.name}</a>`,
                    html`<code>${a.app_id}</code>`,
                  ]),
                )
          }
          <h3>New app</h3>
          ${form(
            ctx,
            `${SITE}/apps`,
            html`<label for="app-name">Name</label>
              <input id="app-name" type="text" name="name" maxlength="64" required />
              <label for="app-uris">Redirect URIs, one per line</label>
              <textarea id="app-uris" name="redirect_uris" placeholder="https://your.app/callback"></textarea>`,
            'Create app',
          )}
        </section>
      </div>`,
  );
}

/** Credentials shown once: at creation, after a reset, a new Webhook Key. */
export interface Reveal {
  title: string;
  lead: string;
  values: readonly (readonly [label: string, value: string])[];
  back: string;
}

export function revealPage(ctx: PageContext, r: Reveal): string {
  return layout(
    ctx,
    r.title,
    html`<h1>${r.title}</h1>
      <section class="card">
        <p>${r.lead}</p>
        ${r.values.map(
          ([label, value]) =>
            html`<h3>${label}</h3>
              <code class="secret">${value}</code>`,
        )}
        <p class="note warn">
          Copy what you need now: the App Secret and the Webhook Key are shown only this once. If one leaks, reset it.
        </p>
        <p><a href="${r.back}">Continue</a></p>
      </section>`,
  );
}

function deliveriesTable(ctx: PageContext, bot: BotView, log: readonly DeliveryView[]): Html {
  if (log.length === 0) return html`<p>No webhook deliveries yet.</p>`;
  const state = (d: DeliveryView) =>
    d.state === 'delivered'
      ? html`<span class="pill ok">delivered</span>`
      : d.state === 'redelivered'
        ? html`<span class="pill">failed, then delivered</span>`
        : html`<span class="pill bad">failed</span>`;
  return table(
    ['Time (UTC)', 'Update', 'Attempt', 'HTTP', 'Error', 'ms', 'State', ''],
    log.map((d) => [
      when(d.created_at),
      d.update_id,
      d.attempt,
      d.status_code ?? '-',
      d.error ?? '',
      d.duration_ms,
      state(d),
      d.state === 'failed' &&
        form(ctx, `${SITE}/bots/${bot.bot_user_id}/deliveries/${d.id}/redeliver`, '', 'Redeliver', 'secondary'),
    ]),
  );
}

function radios(name: string, options: readonly (readonly [string, string])[], current: string): Html {
  return html`${options.map(
    ([value, label]) =>
      html`<label class="choice"
        ><input type="radio" name="${name}" value="${value}" ${value === current && html`checked`} /> ${label}</label
      >`,
  )}`;
}

function permissionsCard(ctx: PageContext, bot: BotView): Html {
  const pending = new Set(bot.applications.filter((a) => a.status === 'pending').map((a) => a.permission));
  const open = PERMISSIONS.filter((p) => !bot.permissions.includes(p) && !pending.has(p));
  const status = (s: string) =>
    html`<span class="pill ${s === 'approved' ? 'ok' : s === 'rejected' ? 'bad' : 'wait'}">${s}</span>`;
  return html`<section class="card" aria-labelledby="perms">
    <h2 id="perms">Permissions</h2>
    <p>
      Held: ${bot.permissions.length === 0 ? 'none' : bot.permissions.map((p) => PERMISSION_NAMES[p] ?? p).join(', ')}
    </p>
    ${
      bot.applications.length > 0 &&
      table(
        ['Permission', 'Filed', 'Status', 'Note'],
        bot.applications.map((a) => [
          PERMISSION_NAMES[a.permission] ?? a.permission,
          a.created_at.slice(0, 10),
          status(a.status),
          a.note ?? '',
        ]),
      )
    }
    ${
      open.length > 0 &&
      form(
        ctx,
        `${SITE}/bots/${bot.bot_user_id}/permissions`,
        html`<fieldset>
          <legend>Apply for</legend>
          ${radios(
            'permission',
            open.map((p) => [p, PERMISSION_NAMES[p] ?? p] as const),
            open[0] ?? '',
          )}
        </fieldset>`,
        'Apply',
        'secondary',
      )
    }
    <p class="fine">Each permission needs the platform's review.</p>
  </section>`;
}

/** The top of a bot's or an app's page: back link, monogram or avatar, name, id line, notice. */
function pageHead(name: string, avatar: string, sub: Html, n: Notice | undefined): Html {
  return html`<p class="crumb"><a href="${SITE}/">Your apps and bots</a></p>
    <div class="head">
      ${badge(name, avatar)}
      <div>
        <h1>${name}</h1>
        <span class="who">${sub}</span>
      </div>
    </div>
    ${notice(n)}`;
}

/** The App Key, the note that the secret is not shown again, more rows, and the two resets. */
function credentialsCard(ctx: PageContext, path: string, apiKey: string, more: readonly Html[]): Html {
  return html`<section class="card" aria-labelledby="creds">
    <h2 id="creds">Credentials</h2>
    <dl>
      ${row('App Key', html`<code>${apiKey}</code>`)} ${row('App Secret', 'shown only when created or reset')} ${more}
    </dl>
    <div class="actions">
      ${form(ctx, `${path}/reset-key`, '', 'Reset App Key', 'secondary')}
      ${form(ctx, `${path}/reset-secret`, '', 'Reset App Secret', 'secondary')}
    </div>
    <p class="fine">A reset takes effect at once: the old value stops working.</p>
  </section>`;
}

export function botPage(ctx: PageContext, bot: BotView, log: readonly DeliveryView[], n?: Notice): string {
  const path = `${SITE}/bots/${bot.bot_user_id}`;
  const formatName = `${bot.payload_format} format`;
  return layout(
    ctx,
    bot.name,
    html`${pageHead(bot.name, bot.avatar, html`Bot id <code>${bot.bot_user_id}</code> ${modePill(bot.mode)}`, n)}
      <div class="grid">
        ${credentialsCard(ctx, path, bot.api_key, [
          row('Telegram token', html`<code>${bot.telegram_token}</code>`),
          row('App id', html`<code>${bot.app_id}</code>`),
          row('Level', String(bot.level)),
          row('EVM address', html`<code>${bot.evm_address}</code>`),
        ])}
        <section class="card" aria-labelledby="receiving">
          <h2 id="receiving">Receiving updates</h2>
          <p id="mode">
            ${
              bot.mode === 'webhook'
                ? html`Mode: <strong>Webhook</strong> at <code>${bot.webhook_url ?? ''}</code> (${formatName})`
                : html`Mode: <strong>Long polling</strong> (getUpdates)`
            }
          </p>
          ${bot.mode === 'webhook' && lastError(bot)}
          ${form(
            ctx,
            `${path}/webhook`,
            html`<label for="webhook-url">Webhook URL</label>
              <input
                id="webhook-url"
                type="url"
                name="url"
                required
                placeholder="https://your.server/hook"
                value="${bot.webhook_url ?? ''}"
              />
              <fieldset>
                <legend>Payload format</legend>
                ${radios(
                  'payload_format',
                  [
                    ['update', 'Update (default)'],
                    ['flat', 'Flat (older callback format)'],
                  ],
                  bot.payload_format,
                )}
              </fieldset>`,
            bot.mode === 'webhook' ? 'Change webhook' : 'Set webhook',
          )}
          ${bot.mode === 'webhook' && form(ctx, `${path}/webhook/clear`, '', 'Clear webhook (back to long polling)', 'secondary')}
          <p class="fine">Setting a Webhook URL switches long polling off and issues a new Webhook Key.</p>
        </section>
        <section class="card" aria-labelledby="profile">
          <h2 id="profile">Profile</h2>
          ${form(
            ctx,
            `${path}/profile`,
            html`<label for="name">Name</label>
              <input id="name" type="text" name="name" maxlength="64" required value="${bot.name}" />
              <label for="avatar">Avatar (https image address)</label>
              <input id="avatar" type="url" name="avatar" value="${bot.avatar}" />
              <label for="description">Description</label>
              <textarea id="description" name="description" maxlength="512">${bot.description}</textarea>`,
            'Save profile',
          )}
        </section>
        <section class="card" aria-labelledby="privacy">
          <h2 id="privacy">Privacy</h2>
          ${form(
            ctx,
            `${path}/privacy`,
            html`<fieldset>
                <legend>Who may send the bot private messages</legend>
                ${radios('private_messages', PRIVATE_OPTIONS, bot.private_messages)}
              </fieldset>
              <fieldset>
                <legend>Who may invite the bot to groups</legend>
                ${radios('group_invites', INVITE_OPTIONS, bot.group_invites)}
              </fieldset>`,
            'Save privacy settings',
          )}
        </section>
        ${permissionsCard(ctx, bot)}
        <section class="card" aria-labelledby="delete">
          <h2 id="delete">Deleting</h2>
          <p>Created bots cannot be deleted. You can rename it, reset its keys or clear its webhook.</p>
        </section>
      </div>
      <section class="card" aria-labelledby="deliveries">
        <h2 id="deliveries">Recent webhook deliveries</h2>
        ${deliveriesTable(ctx, bot, log)}
      </section>`,
  );
}

export function appPage(ctx: PageContext, app: AppView, n?: Notice): string {
  const path = `${SITE}/apps/${app.app_id}`;
  return layout(
    ctx,
    app.name,
    html`${pageHead(app.name, '', html`App id <code>${app.app_id}</code>`, n)}
      <div class="grid">
        ${credentialsCard(ctx, path, app.api_key, [])}
        <section class="card" aria-labelledby="uris">
          <h2 id="uris">Redirect URIs</h2>
          ${form(
            ctx,
            `${path}/redirect-uris`,
            html`<label for="redirect-uris">One per line; the authorize page accepts exactly these</label>
              <textarea id="redirect-uris" name="redirect_uris">${app.redirect_uris.join('\n')}</textarea>`,
            'Save redirect URIs',
          )}
        </section>
      </div>`,
  );
}

/** An error or a sign-in prompt, in the site's frame. */
export function messagePage(ctx: PageContext | undefined, heading: string, message: string, back?: string): string {
  return layout(
    ctx,
    heading,
    html`<section class="card">
      <h1>${heading}</h1>
      <p>${message}</p>
      ${back !== undefined && html`<p><a href="${back}">Back</a></p>`}
    </section>`,
  );
}
