// The operator console's HTML, on the developer site's look. Rendering only.
import { html, table, type Html, type Part } from '../../http/pages/html.js';
import type { Lang } from '../../http/pages/lang.js';
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
import type { ApplicationView } from '../bots/index.js';
import type { ConsoleService } from './service.js';
import type { ConsoleTexts } from './texts.js';

export const CONSOLE = '/console';
export const CONSOLE_SHEET = siteSheet(`
.tabs{display:flex;flex-wrap:wrap;gap:6px 16px;margin:0 0 16px;padding:0;list-style:none}
.tabs a[aria-current]{font-weight:700}
.search{display:flex;gap:8px;align-items:end}
.search div{flex:1}
.ok-text{color:var(--ok)}
.bad-text{color:var(--danger)}
td form{display:inline-block;margin:0 6px 6px 0}
`);

export interface ConsoleContext {
  lang: Lang;
  t: ConsoleTexts;
  /** Undefined on the sign-in page. */
  operator?: string;
  csrf: string;
}

export type Tab = 'home' | 'bots' | 'health' | 'audit';
const TABS: Record<Tab, string> = { home: '/', bots: '/bots', health: '/health', audit: '/audit' };

const form = (ctx: ConsoleContext, action: string, body: Part, label: string, style = 'primary'): Html =>
  postForm(ctx.csrf, action, body, submitButton(label, style));

function layout(ctx: ConsoleContext, title: string, body: Part, tab?: Tab): string {
  const { t } = ctx;
  return framedPage(CONSOLE_SHEET, {
    lang: ctx.lang,
    title,
    home: `${CONSOLE}/`,
    brand: t.brand,
    who:
      ctx.operator !== undefined &&
      html`<div class="who">
        ${t.signedInAs}
        <strong>${ctx.operator}</strong>
        ${ctx.csrf !== '' && form(ctx, `${CONSOLE}/sign-out`, '', t.signOut, 'secondary')}
      </div>`,
    main: html`${
      tab !== undefined &&
      html`<nav aria-label="${t.brand}">
        <ul class="tabs">
          ${(Object.keys(TABS) as Tab[]).map(
            (k) =>
              html`<li>
                <a href="${CONSOLE}${TABS[k]}" ${k === tab && html`aria-current="page"`}>${t.nav[k]}</a>
              </li>`,
          )}
        </ul>
      </nav>`
    }
    ${body}`,
  });
}

const notice = (text: string | undefined): Part =>
  text !== undefined && html`<p class="note ok" role="status">${text}</p>`;

/** `alert`: why the last attempt failed (a wrong token, too many of them). */
export function signInPage(ctx: ConsoleContext, alert: string | undefined): string {
  const { t } = ctx;
  return layout(
    ctx,
    t.signInTitle,
    headedCard(
      t.signInTitle,
      t.signInLead,
      html`${alert !== undefined && html`<p class="note bad" role="alert">${alert}</p>`}
      ${form(
        ctx,
        `${CONSOLE}/sign-in`,
        html`<label for="token">${t.token}</label>
          <input id="token" type="password" name="token" required autocomplete="current-password" />
          <label for="name">${t.yourName}</label>
          <input id="name" type="text" name="name" maxlength="64" autocomplete="name" />
          <p></p>`,
        t.signIn,
      )}`,
    ),
  );
}

export interface PendingApplication extends ApplicationView {
  bot_name: string;
  owner_user_id: string;
  description: string;
}

export function homePage(ctx: ConsoleContext, pending: readonly PendingApplication[], done?: string): string {
  const { t } = ctx;
  return layout(
    ctx,
    t.nav.home,
    html`<h1>${t.applications}</h1>
      ${notice(done)}
      <section class="card">
        ${tableOr(
          t.noApplications,
          [t.bot, t.owner, t.permission, t.filed, t.action],
          pending.map((a) => [
            html`<a href="${CONSOLE}/bots/${a.bot_user_id}">${a.bot_name}</a><br /><code>${a.bot_user_id}</code>
              <p class="fine">${a.description}</p>`,
            html`<code>${a.owner_user_id}</code>`,
            html`<code>${a.permission}</code>`,
            a.created_at.slice(0, 19).replace('T', ' '),
            html`${form(
              ctx,
              `${CONSOLE}/applications/${a.id}/approve`,
              html`<label for="note-${a.id}">${t.note}</label>
                <input id="note-${a.id}" type="text" name="note" maxlength="1000" />`,
              t.approve,
            )}
            ${form(ctx, `${CONSOLE}/applications/${a.id}/reject`, '', t.reject, 'danger')}`,
          ]),
        )}
      </section>`,
    'home',
  );
}

export function botsPage(ctx: ConsoleContext, query: string, found: Awaited<ReturnType<ConsoleService['search']>>) {
  const { t } = ctx;
  return layout(
    ctx,
    t.nav.bots,
    html`<h1>${t.nav.bots}</h1>
      <section class="card">
        <form method="get" action="${CONSOLE}/bots" class="search" role="search">
          <div>
            <label for="q">${t.search}</label>
            <input id="q" type="text" name="q" value="${query}" maxlength="128" />
          </div>
          <button type="submit" class="secondary">${t.find}</button>
        </form>
      </section>
      <section class="card">
        ${tableOr(
          t.nothingFound,
          [t.name, t.kind, t.id, t.owner, t.receiving],
          found.map((a) => [
            a.bot_user_id === null ? a.name : html`<a href="${CONSOLE}/bots/${a.bot_user_id}">${a.name}</a>`,
            a.kind,
            html`<code>${a.bot_user_id ?? a.app_id}</code>`,
            html`${a.owner_name ?? ''} <code>${a.owner_user_id}</code>`,
            a.kind === 'bot' ? (a.webhook_url === null ? t.polling : t.webhook) : '',
          ]),
        )}
      </section>`,
    'bots',
  );
}

export function botPage(ctx: ConsoleContext, b: Awaited<ReturnType<ConsoleService['bot']>>, done?: string): string {
  const { t } = ctx;
  const { bot } = b;
  return layout(
    ctx,
    bot.name,
    html`<h1>${bot.name}</h1>
      ${notice(done)}
      ${card(
        'health',
        t.health,
        html`<dl>
          ${row(t.id, html`<code>${bot.bot_user_id}</code>`)} ${row(t.owner, html`<code>${b.owner}</code>`)}
          ${row(t.receiving, bot.webhook_url === null ? t.polling : html`${t.webhook} <code>${bot.webhook_url}</code>`)}
          ${row(t.pending, b.pending)}
          ${row(t.lastError, bot.last_error === null ? t.none : `${when(bot.last_error.at)} ${bot.last_error.message}`)}
          ${row(t.lastHour, t.failedOf(b.lastHour.failed, b.lastHour.attempts))}
          ${row(t.permissions, bot.permissions.length === 0 ? t.none : bot.permissions.join(', '))}
        </dl>`,
      )}
      ${card(
        'deliveries',
        t.deliveries,
        tableOr(
          t.noDeliveries,
          [t.time, 'Update', 'HTTP', t.lastError, t.action],
          b.deliveries.map((d) => [
            when(d.created_at),
            d.update_id,
            d.status_code ?? '-',
            d.error ?? '',
            d.state === 'failed' &&
              form(
                ctx,
                `${CONSOLE}/bots/${bot.bot_user_id}/deliveries/${d.id}/redeliver`,
                '',
                t.redeliver,
                'secondary',
              ),
          ]),
        ),
      )}`,
    'bots',
  );
}

export interface Counts {
  events: { type: string; outcome: string; value: number }[];
  webhooks: { outcome: string; value: number }[];
  ledger: { ok: boolean; failures: string[]; figures: [string, string][] };
}

export function healthPage(ctx: ConsoleContext, c: Counts): string {
  const { t } = ctx;
  return layout(
    ctx,
    t.nav.health,
    html`<h1>${t.nav.health}</h1>
      ${card(
        'ledger',
        t.ledger,
        html`${
          c.ledger.ok
            ? html`<p class="note ok" role="status">${t.ledgerOk}</p>`
            : html`<div class="note bad" role="alert">
                <p>${t.ledgerBad}</p>
                <ul>
                  ${c.ledger.failures.map((f) => html`<li>${f}</li>`)}
                </ul>
              </div>`
        }
        ${table([t.figure, t.value], c.ledger.figures)}`,
      )}
      ${card(
        'counters',
        t.counters,
        html`${table(
            [t.events, t.outcome, t.count],
            c.events.map((e) => [html`<code>${e.type}</code>`, e.outcome, e.value]),
          )}
          <h3>${t.webhookAttempts}</h3>
          ${table(
            [t.outcome, t.count],
            c.webhooks.map((w) => [w.outcome, w.value]),
          )}`,
      )}`,
    'health',
  );
}

export function auditPage(ctx: ConsoleContext, rows: Awaited<ReturnType<ConsoleService['audit']>>): string {
  const { t } = ctx;
  return layout(
    ctx,
    t.audit,
    html`<h1>${t.audit}</h1>
      <section class="card">
        ${tableOr(
          t.noAudit,
          [t.time, t.actor, t.action, t.target, t.note],
          rows.map((r) => [when(r.created_at), r.actor, html`<code>${r.action}</code>`, r.target, r.detail]),
        )}
      </section>`,
    'audit',
  );
}

export function messagePage(ctx: ConsoleContext, heading: string, text: string): string {
  return layout(ctx, heading, headedCard(heading, text, html`<p><a href="${CONSOLE}/">${ctx.t.back}</a></p>`));
}
