// The authorize page's HTML: consent (login or payment), "open in the application" and error
// pages. Rendering only; routes.ts decides which page a request gets. Every interpolated
// value goes through `html`, which escapes anything that is not already markup.
import { html, initial, parseUrl, Stylesheet, type Html } from '../../http/pages/html.js';
import type { Lang } from '../../http/pages/lang.js';
import { BASE_CSS } from '../../http/pages/site.js';
import { TEXTS, type AuthorizeTexts } from './texts.js';
import type { Scope } from '../oauth/index.js';

// The pages' palette, then the authorize page's own rules: one card, centred, for a phone first.
const STYLE = `${BASE_CSS}body{margin:0;min-height:100vh;display:flex;justify-content:center;align-items:flex-start;padding:24px 16px;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
@media (min-height:700px){body{align-items:center}}
.card{width:100%;max-width:440px;background:var(--card);border:1px solid var(--line);border-radius:16px;padding:28px 24px 24px;box-shadow:0 1px 2px rgba(16,24,40,.06),0 10px 28px rgba(16,24,40,.08)}
.head{display:flex;align-items:center;gap:14px;margin:0 0 20px}
.badge{flex:none;width:52px;height:52px;border-radius:14px;display:grid;place-items:center;background:var(--soft);color:var(--accent);font-size:24px;font-weight:700;line-height:1}
.badge.danger{background:var(--danger-soft);color:var(--danger)}
.eyebrow{margin:0;color:var(--muted);font-size:14px}
h1{margin:0;font-size:22px;line-height:1.25;overflow-wrap:anywhere}
h2{margin:0 0 4px;font-size:14px;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
p{margin:0 0 16px}
strong{font-weight:650}
.lead{font-size:17px;overflow-wrap:anywhere}
.pay{margin:0 0 20px;padding:16px;border:1px solid var(--line);border-radius:12px}
.amount{margin:0 0 8px;font-size:clamp(26px,9vw,34px);font-weight:700;line-height:1.2;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.amount span{font-size:17px;font-weight:600;color:var(--muted)}
dl{margin:0}
.row{display:flex;justify-content:space-between;align-items:baseline;gap:16px;padding:10px 0;border-top:1px solid var(--line)}
dt{flex:none;color:var(--muted)}
dd{margin:0;text-align:right;font-weight:600;overflow-wrap:anywhere;min-width:0}
.id{display:block;font-size:13px;font-weight:400;color:var(--muted)}
.note{white-space:pre-wrap;font-weight:400;text-align:left}
.who{color:var(--muted);font-size:15px;overflow-wrap:anywhere}
.who strong{color:var(--text)}
form{margin:0}
.actions{display:flex;gap:12px}
button{flex:1 1 0;min-height:48px;padding:12px 16px;border-radius:10px;border:1px solid transparent;font:inherit;font-weight:600;cursor:pointer}
.primary{background:var(--accent);color:var(--on-accent)}
.primary:hover{background:var(--accent-hover)}
.secondary{background:var(--card);color:var(--text);border-color:var(--control)}
.secondary:hover{background:var(--soft)}
@media (max-width:359px){body{padding:12px}.card{padding:22px 18px 18px}.row{display:block}dd{text-align:left}}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.fine{margin:16px 0 0;font-size:14px;color:var(--muted);overflow-wrap:anywhere}
`;

const SHEET = new Stylesheet(STYLE, { languages: true });

/** operator-api.md fixes these labels in every language: the application's tools find the buttons by them. */
const BUTTONS = { cancel: 'Cancel', allow: 'Allow' } as const;

/** Only a plain scheme://host[:port] may enter the policy (a registered URI's host may hold ';'). */
const PLAIN_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d+)?$/;

/**
 * Headers of every authorize page answer. `returnTo` is the redirect URI the form may lead to:
 * Chromium applies `form-action` to the redirect that follows the POST, so its origin is listed.
 */
export function pageHeaders(returnTo?: string): Record<string, string> {
  const url = returnTo === undefined ? undefined : parseUrl(returnTo);
  if (url === undefined) return SHEET.headers();
  return SHEET.headers([PLAIN_ORIGIN.test(url.origin) ? url.origin : url.protocol]);
}

export interface Party {
  userId: string;
  name: string;
}

export interface ConsentView {
  appName: string;
  /** The signed-in user. */
  user: Party;
  scope: Scope;
  /** Host of the redirect URI, shown so the user sees where they will land. */
  returnHost: string;
  /** Parameters the form posts back, the CSRF token included. */
  hidden: Readonly<Record<string, string>>;
  payment?: {
    payType: 'send' | 'receive';
    /** Decimal text, e.g. "12.5". */
    amount: string;
    payer: Party;
    receiver: Party;
    payInfo: string;
  };
}

/** What the app asks for, in plain words, completing "<app> would like to ...". */
export function requestWords(v: Pick<ConsentView, 'scope' | 'payment'>, t: AuthorizeTexts = TEXTS.en): string {
  if (v.payment !== undefined) return v.payment.payType === 'send' ? t.requestPayment : t.sendPayment;
  return v.scope === 'moment' ? t.signInMoments : t.signInPayments;
}

function party(p: Party, user: Party, t: AuthorizeTexts): Html {
  return html`${p.name}${p.userId === user.userId ? t.you : ''}<span class="id">ID ${p.userId}</span>`;
}

function paymentDetails(p: NonNullable<ConsentView['payment']>, user: Party, t: AuthorizeTexts): Html {
  return html`<section class="pay" aria-labelledby="pay-title">
    <h2 id="pay-title">${p.payType === 'send' ? t.youPay : t.youReceive}</h2>
    <p class="amount">${p.amount} <span>${t.points}</span></p>
    <dl>
      <div class="row">
        <dt>${t.from}</dt>
        <dd>${party(p.payer, user, t)}</dd>
      </div>
      <div class="row">
        <dt>${t.to}</dt>
        <dd>${party(p.receiver, user, t)}</dd>
      </div>
      ${
        p.payInfo !== '' &&
        html`<div class="row">
          <dt>${t.for}</dt>
          <dd class="note">${p.payInfo}</dd>
        </div>`
      }
    </dl>
  </section>`;
}

export function consentPage(v: ConsentView, lang: Lang = 'en'): string {
  const t = TEXTS[lang];
  const hidden = Object.entries(v.hidden).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" /> `,
  );
  const title = v.payment === undefined ? t.signInTo(v.appName) : t.paymentFor(v.appName);
  return SHEET.document(
    title,
    html`<main class="card" aria-labelledby="title">
      <div class="head">
        <span class="badge" aria-hidden="true">${initial(v.appName)}</span>
        <div>
          <p class="eyebrow">${v.payment === undefined ? t.authorizationRequest : t.paymentRequest}</p>
          <h1 id="title">${v.appName}</h1>
        </div>
      </div>
      <p class="lead"><strong>${v.appName}</strong> ${t.wouldLikeTo} <strong>${requestWords(v, t)}</strong>${t.stop}</p>
      ${v.payment !== undefined && paymentDetails(v.payment, v.user, t)}
      <p class="who">${t.signedInAs} <strong>${v.user.name}</strong></p>
      <form method="post" action="/oauth/authorize" aria-label="${t.answerRequest(v.appName)}">
        ${hidden}
        <div class="actions">
          <button type="submit" name="action" value="cancel" class="secondary">${BUTTONS.cancel}</button>
          <button type="submit" name="action" value="allow" class="primary">${BUTTONS.allow}</button>
        </div>
      </form>
      <p class="fine">${t.returnTo} <strong>${v.returnHost}</strong>${t.stop}${t.space}${t.trust}</p>
    </main>`,
    lang,
  );
}

/** Without a live session: the link must be opened in the application's own browser. */
export function openInAppPage(appName: string, lang: Lang = 'en'): string {
  const t = TEXTS[lang];
  return SHEET.document(
    t.openInApp,
    html`<main class="card" aria-labelledby="title">
      <div class="head">
        <span class="badge" aria-hidden="true">${initial(appName)}</span>
        <div>
          <p class="eyebrow">${appName}</p>
          <h1 id="title">${t.openHeading}</h1>
        </div>
      </div>
      <p>${t.notSignedIn} <strong>${appName}</strong>, ${t.openInside}</p>
      <p class="fine">${t.builtInOnly}</p>
    </main>`,
    lang,
  );
}

export function errorPage(heading: string, message: string, lang: Lang = 'en'): string {
  return SHEET.document(
    heading,
    html`<main class="card" aria-labelledby="title">
      <div class="head">
        <span class="badge danger" aria-hidden="true">!</span>
        <h1 id="title">${heading}</h1>
      </div>
      <p>${message}</p>
      <p class="fine">${TEXTS[lang].tryAgain}</p>
    </main>`,
    lang,
  );
}
