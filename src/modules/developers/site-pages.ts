// The developer site's HTML. Rendering only: site-routes.ts decides which page a request gets and
// the service decides everything else. Every interpolated value is escaped by `html`.
import { html, initial, table, type Html, type Part } from '../../http/pages/html.js';
import { CSRF_FIELD } from '../../http/pages/csrf.js';
import { lookup, type Lang } from '../../http/pages/lang.js';
import type { SignedIn } from '../../http/pages/routes.js';
import {
  card,
  framedPage,
  headedCard,
  postForm,
  row,
  siteSheet,
  submitButton,
  tableOr,
  when,
} from '../../http/pages/site.js';
import { MAX_BOTS_PER_OWNER } from '../apps/index.js';
import { PERMISSIONS } from '../bots/index.js';
import type { AppSummary, AppView, BotView, DeliveryView } from './service.js';
import type { SiteTexts } from './site-texts.js';

export const SITE = '/developers';
export const SITE_SHEET = siteSheet();

/** The page's language and its texts. */
export interface PageTexts {
  lang: Lang;
  t: SiteTexts;
}

/** Who is signed in, and the CSRF token every form of the page carries. */
export type PageContext = PageTexts & SignedIn;

export type Tone = 'ok' | 'bad' | 'warn' | 'info';
export interface Notice {
  tone: Tone;
  text: string;
}

const PRIVATE_OPTIONS = ['following', 'everyone', 'friends'] as const;
const INVITE_OPTIONS = ['everyone', 'following'] as const;

const permissionName = (t: SiteTexts, p: string): string => lookup(t.permissionNames, p) ?? p;
const audience = (t: SiteTexts, options: readonly (keyof SiteTexts['audience'])[]) =>
  options.map((o) => [o, t.audience[o]] as const);

/** The last delivery error: red while it is the latest news, neutral once a delivery got through after it. */
function lastError(t: SiteTexts, bot: BotView): Part {
  const e = bot.last_error;
  if (e === null) return false;
  if (bot.last_success_at === null || bot.last_success_at < e.at) {
    return html`<p class="note bad">${t.lastError(when(e.at), e.message)}</p>`;
  }
  const text = t.resolved(when(bot.last_success_at), when(e.at), e.message);
  // The paragraph keeps its text on a line of its own, as the page has always shown it.
  // prettier-ignore
  return html`<p class="note" role="status">
    ${text}
  </p>`;
}

const signOut = (ctx: PageContext): Html =>
  html`<form method="post" action="${SITE}/sign-out" class="out">
    <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
    <button type="submit" class="secondary">${ctx.t.signOut}</button>
  </form>`;

const signedIn = (ctx: PageTexts): ctx is PageContext => 'csrf' in ctx;

function layout(ctx: PageTexts, title: string, body: Part): string {
  return framedPage(SITE_SHEET, {
    lang: ctx.lang,
    title,
    home: `${SITE}/`,
    brand: ctx.t.brand,
    who:
      signedIn(ctx) &&
      html`<span class="who">${ctx.t.signedInAs} <strong>${ctx.userName}</strong></span
        >${signOut(ctx)}`,
    main: body,
  });
}

const notice = (n: Notice | undefined): Part =>
  n !== undefined && html`<p class="note ${n.tone === 'info' ? '' : n.tone}" role="status">${n.text}</p>`;

/** A POST form with the CSRF token. */
const form = (ctx: PageContext, action: string, body: Part, label: string, style = 'primary'): Html =>
  postForm(ctx.csrf, action, body, html`<div class="actions">${submitButton(label, style)}</div>`);

const modePill = (t: SiteTexts, mode: AppSummary['mode']): Part =>
  mode === 'webhook'
    ? html`<span class="pill ok">${t.webhook}</span>`
    : mode === 'polling' && html`<span class="pill">${t.polling}</span>`;

function badge(name: string, avatar = ''): Html {
  return avatar === ''
    ? html`<span class="badge" aria-hidden="true">${initial(name)}</span>`
    : html`<span class="badge"><img src="${avatar}" alt="" /></span>`;
}

export function homePage(ctx: PageContext, apps: readonly AppSummary[], n?: Notice): string {
  const bots = apps.filter((a) => a.kind === 'bot');
  const others = apps.filter((a) => a.kind === 'app');
  const full = bots.length >= MAX_BOTS_PER_OWNER;
  const { t } = ctx;
  return layout(
    ctx,
    t.home,
    html`<h1>${t.home}</h1>
      <p class="sub">${t.homeLead}</p>
      ${notice(n)}
      <div class="grid">
        ${card(
          'bots',
          t.botsOf(bots.length, MAX_BOTS_PER_OWNER),
          html`${tableOr(
              t.noBots,
              [t.name, t.botId, t.receiving],
              bots.map((b) => [
                html`<a href="${SITE}/bots/${b.bot_user_id ?? ''}">${b.name}</a>`,
                html`<code>${b.bot_user_id ?? ''}</code>`,
                modePill(t, b.mode),
              ]),
            )}
            <h3>${t.newBot}</h3>
            ${
              full
                ? html`<p class="note warn">${t.tooManyBots(MAX_BOTS_PER_OWNER)}</p>`
                : form(
                    ctx,
                    `${SITE}/bots`,
                    html`<label for="bot-name">${t.name}</label>
                      <input id="bot-name" type="text" name="name" maxlength="64" required />
                      <label for="bot-description">${t.description}</label>
                      <textarea id="bot-description" name="description" maxlength="512"></textarea>
                      <p class="fine">${t.botLimit(MAX_BOTS_PER_OWNER)}</p>`,
                    t.createBot,
                  )
            }`,
        )}
        ${card(
          'apps',
          t.apps,
          html`${tableOr(
              t.noApps,
              [t.name, t.appId],
              others.map((a) => [
                html`<a href="${SITE}/apps/${a.app_id}">${a.name}</a>`,
                html`<code>${a.app_id}</code>`,
              ]),
            )}
            <h3>${t.newApp}</h3>
            ${form(
              ctx,
              `${SITE}/apps`,
              html`<label for="app-name">${t.name}</label>
                <input id="app-name" type="text" name="name" maxlength="64" required />
                <label for="app-uris">${t.redirectUrisLines}</label>
                <textarea id="app-uris" name="redirect_uris" placeholder="https://your.app/callback"></textarea>`,
              t.createApp,
            )}`,
        )}
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
    headedCard(
      r.title,
      r.lead,
      html`${r.values.map(
          ([label, value]) =>
            html`<h3>${label}</h3>
              <code class="secret">${value}</code>`,
        )}
        <p class="note warn">${ctx.t.copyNow}</p>
        <p><a href="${r.back}">${ctx.t.continue}</a></p>`,
    ),
  );
}

function deliveriesTable(ctx: PageContext, bot: BotView, log: readonly DeliveryView[]): Html {
  const { t } = ctx;
  const state = (d: DeliveryView) =>
    d.state === 'delivered'
      ? html`<span class="pill ok">${t.delivered}</span>`
      : d.state === 'redelivered'
        ? html`<span class="pill">${t.redelivered}</span>`
        : html`<span class="pill bad">${t.failedState}</span>`;
  return tableOr(
    t.noDeliveries,
    t.deliveryHeadings,
    log.map((d) => [
      when(d.created_at),
      d.update_id,
      d.attempt,
      d.status_code ?? '-',
      d.error ?? '',
      d.duration_ms,
      state(d),
      d.state === 'failed' &&
        form(ctx, `${SITE}/bots/${bot.bot_user_id}/deliveries/${d.id}/redeliver`, '', t.redeliver, 'secondary'),
    ]),
  );
}

function radios(name: string, options: readonly (readonly [value: string, label: string])[], current: string): Html {
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
  const { t } = ctx;
  const tone = (s: string) => (s === 'approved' ? 'ok' : s === 'rejected' ? 'bad' : 'wait');
  const status = (s: string) => html`<span class="pill ${tone(s)}">${lookup(t.applicationStatus, s) ?? s}</span>`;
  return card(
    'perms',
    t.permissions,
    html`<p>
        ${t.held} ${bot.permissions.length === 0 ? t.none : bot.permissions.map((p) => permissionName(t, p)).join(', ')}
      </p>
      ${
        bot.applications.length > 0 &&
        table(
          t.applicationHeadings,
          bot.applications.map((a) => [
            permissionName(t, a.permission),
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
            <legend>${t.applyFor}</legend>
            ${radios(
              'permission',
              open.map((p) => [p, permissionName(t, p)] as const),
              open[0] ?? '',
            )}
          </fieldset>`,
          t.apply,
          'secondary',
        )
      }
      <p class="fine">${t.review}</p>`,
  );
}

/** The top of a bot's or an app's page: back link, monogram or avatar, name, id line, notice. */
function pageHead(t: SiteTexts, name: string, avatar: string, sub: Html, n: Notice | undefined): Html {
  return html`<p class="crumb"><a href="${SITE}/">${t.home}</a></p>
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
  const { t } = ctx;
  return card(
    'creds',
    t.credentials,
    html`<dl>${row(t.appKey, html`<code>${apiKey}</code>`)} ${row(t.appSecret, t.shownOnce)} ${more}</dl>
      <div class="actions">
        ${form(ctx, `${path}/reset-key`, '', t.resetKey, 'secondary')}
        ${form(ctx, `${path}/reset-secret`, '', t.resetSecret, 'secondary')}
      </div>
      <p class="fine">${t.resetAtOnce}</p>`,
  );
}

export function botPage(ctx: PageContext, bot: BotView, log: readonly DeliveryView[], n?: Notice): string {
  const path = `${SITE}/bots/${bot.bot_user_id}`;
  const { t } = ctx;
  const head = html`${t.botId} <code>${bot.bot_user_id}</code> ${modePill(t, bot.mode)}`;
  const hook = html`<code>${bot.webhook_url ?? ''}</code>`;
  const format = t.format(bot.payload_format);
  return layout(
    ctx,
    bot.name,
    html`${pageHead(t, bot.name, bot.avatar, head, n)}
      <div class="grid">
        ${credentialsCard(ctx, path, bot.api_key, [
          row(t.telegramToken, html`<code>${bot.telegram_token}</code>`),
          row(t.appId, html`<code>${bot.app_id}</code>`),
          row(t.level, String(bot.level)),
          row(t.evmAddress, html`<code>${bot.evm_address}</code>`),
        ])}
        ${card(
          'receiving',
          t.receivingUpdates,
          html`<p id="mode">
              ${
                bot.mode === 'webhook'
                  ? html`${t.mode} <strong>${t.webhook}</strong> ${t.at} ${hook} (${format})`
                  : html`${t.mode} <strong>${t.polling}</strong> (getUpdates)`
              }
            </p>
            ${bot.mode === 'webhook' && lastError(t, bot)}
            ${form(
              ctx,
              `${path}/webhook`,
              html`<label for="webhook-url">${t.webhookUrl}</label>
                <input
                  id="webhook-url"
                  type="url"
                  name="url"
                  required
                  placeholder="https://your.server/hook"
                  value="${bot.webhook_url ?? ''}"
                />
                <fieldset>
                  <legend>${t.payloadFormat}</legend>
                  ${radios(
                    'payload_format',
                    [
                      ['update', t.updateFormat],
                      ['flat', t.flatFormat],
                    ],
                    bot.payload_format,
                  )}
                </fieldset>`,
              bot.mode === 'webhook' ? t.changeWebhook : t.setWebhook,
            )}
            ${bot.mode === 'webhook' && form(ctx, `${path}/webhook/clear`, '', t.clearWebhook, 'secondary')}
            <p class="fine">${t.webhookNote}</p>`,
        )}
        ${card(
          'profile',
          t.profile,
          html`${form(
            ctx,
            `${path}/profile`,
            html`<label for="name">${t.name}</label>
              <input id="name" type="text" name="name" maxlength="64" required value="${bot.name}" />
              <label for="avatar">${t.avatar}</label>
              <input id="avatar" type="url" name="avatar" value="${bot.avatar}" />
              <label for="description">${t.description}</label>
              <textarea id="description" name="description" maxlength="512">${bot.description}</textarea>`,
            t.saveProfile,
          )}`,
        )}
        ${card(
          'privacy',
          t.privacy,
          html`${form(
            ctx,
            `${path}/privacy`,
            html`<fieldset>
                <legend>${t.whoMayWrite}</legend>
                ${radios('private_messages', audience(t, PRIVATE_OPTIONS), bot.private_messages)}
              </fieldset>
              <fieldset>
                <legend>${t.whoMayInvite}</legend>
                ${radios('group_invites', audience(t, INVITE_OPTIONS), bot.group_invites)}
              </fieldset>`,
            t.savePrivacy,
          )}`,
        )}
        ${permissionsCard(ctx, bot)} ${card('delete', t.deleting, html`<p>${t.notDeletable}</p>`)}
      </div>
      ${card('deliveries', t.recentDeliveries, html`${deliveriesTable(ctx, bot, log)}`)}`,
  );
}

export function appPage(ctx: PageContext, app: AppView, n?: Notice): string {
  const path = `${SITE}/apps/${app.app_id}`;
  const { t } = ctx;
  return layout(
    ctx,
    app.name,
    html`${pageHead(t, app.name, '', html`${t.appId} <code>${app.app_id}</code>`, n)}
      <div class="grid">
        ${credentialsCard(ctx, path, app.api_key, [])}
        ${card(
          'uris',
          t.redirectUris,
          html`${form(
            ctx,
            `${path}/redirect-uris`,
            html`<label for="redirect-uris">${t.redirectUrisNote}</label>
              <textarea id="redirect-uris" name="redirect_uris">${app.redirect_uris.join('\n')}</textarea>`,
            t.saveRedirectUris,
          )}`,
        )}
      </div>`,
  );
}

/** An error or a sign-in prompt, in the site's frame. */
export function messagePage(ctx: PageTexts, heading: string, message: string, back?: string): string {
  return layout(
    ctx,
    heading,
    html`<section class="card">
      <h1>${heading}</h1>
      <p>${message}</p>
      ${back !== undefined && html`<p><a href="${back}">${ctx.t.back}</a></p>`}
    </section>`,
  );
}
