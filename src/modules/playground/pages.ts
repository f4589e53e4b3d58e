// The playground's HTML: the bots and chats to pick from, the conversation and the composer.
// Rendering only; routes.ts decides what a request gets.
import { CSRF_FIELD } from '../../http/pages/csrf.js';
import { html, type Html, type Part } from '../../http/pages/html.js';
import type { Lang } from '../../http/pages/lang.js';
import { framedPage, headedCard, siteSheet } from '../../http/pages/site.js';
import { LIVE_HASH } from './live-script.js';
import { messageItem, type ChatForm } from './message-html.js';
import type { BotChoice, Conversation, Place } from './service.js';
import type { PlaygroundTexts } from './texts.js';

export const PLAYGROUND = '/playground';

const CHAT_CSS = `
.play{display:grid;grid-template-columns:minmax(200px,260px) 1fr;gap:16px;align-items:start}
.picks{list-style:none;margin:0 0 16px;padding:0}
.picks li{padding:6px 0;border-top:1px solid var(--line)}
.picks li:first-child{border-top:0}
.picks a[aria-current]{font-weight:700}
.log{list-style:none;margin:0;padding:0;max-height:60vh;overflow-y:auto}
.log:has(li)+.empty{display:none}
.msg{margin:0 0 12px;padding:10px 12px;border-radius:12px;background:var(--code);border:1px solid var(--line);max-width:85%}
.msg.mine{margin-left:auto;background:var(--soft)}
.msg .meta{margin:0 0 4px;font-size:13px;color:var(--muted)}
.msg .text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 6px}
.msg .title{font-weight:700;margin:0 0 4px}
.msg .pic img{max-width:100%;height:auto;border-radius:8px}
.mentions{font-size:13px;color:var(--muted)}
.keyboard{display:grid;gap:6px;margin-top:6px}
.keys{display:flex;gap:6px;flex-wrap:wrap}
.key{flex:1 1 auto;margin:0}
.key button,.key a{width:100%;display:inline-block;text-align:center}
.composer .send{display:flex;gap:8px}
.composer input[type=text]{flex:1}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:720px){.play{grid-template-columns:1fr}.msg{max-width:100%}}
`;

export const PLAYGROUND_SHEET = siteSheet(CHAT_CSS);
export const PLAYGROUND_SCRIPT = `'${LIVE_HASH}'`;

export interface PlaygroundContext {
  lang: Lang;
  t: PlaygroundTexts;
  userId: string;
  userName: string;
  csrf: string;
}

/** The script element: its integrity is the hash the CSP allows. */
const SCRIPT_ELEMENT = html`<script src="${PLAYGROUND}/live.js" integrity="${LIVE_HASH}" defer></script>`;

function layout(ctx: Pick<PlaygroundContext, 'lang' | 't'> & Partial<PlaygroundContext>, body: Part, script = false) {
  const { t } = ctx;
  return framedPage(PLAYGROUND_SHEET, {
    lang: ctx.lang,
    title: t.title,
    home: `${PLAYGROUND}/`,
    brand: t.brand,
    who: ctx.userName !== undefined && html`<span class="who">${t.signedInAs} <strong>${ctx.userName}</strong></span>`,
    main: body,
    after: script && SCRIPT_ELEMENT,
  });
}

const chatForm = (ctx: PlaygroundContext, place: Place): ChatForm => ({
  action: `${PLAYGROUND}/press`,
  csrf: ctx.csrf,
  bot: place.bot?.user_id ?? '',
  ...(place.group !== undefined ? { group: place.group.group_id } : {}),
});

const query = (place: Place): string =>
  new URLSearchParams({
    ...(place.bot !== undefined ? { bot: place.bot.user_id } : {}),
    ...(place.group !== undefined ? { group: place.group.group_id } : {}),
  }).toString();

function picker(ctx: PlaygroundContext, place: Place): Html {
  const { t } = ctx;
  const current = (yes: boolean) => yes && html`aria-current="page"`;
  return html`<nav class="card" aria-label="${t.bots}">
    <h2>${t.bots}</h2>
    <ul class="picks">
      ${place.bots.map(
        (b) =>
          html`<li>
            <a href="${PLAYGROUND}/?bot=${b.user_id}" ${current(b.user_id === place.bot?.user_id)}>${b.name}</a>
            <span class="pill">${t.roles[b.role]}</span>
          </li>`,
      )}
    </ul>
    ${
      place.bot !== undefined &&
      html`<h2>${t.chats}</h2>
        <ul class="picks">
          <li>
            <a href="${PLAYGROUND}/?bot=${place.bot.user_id}" ${current(place.group === undefined)}>${t.privateChat}</a>
          </li>
          ${place.groups.map(
            (g) =>
              html`<li>
                <a
                  href="${PLAYGROUND}/?${new URLSearchParams({ bot: place.bot?.user_id ?? '', group: g.group_id }).toString()}"
                  ${current(g.group_id === place.group?.group_id)}
                  >${g.name}</a
                >
              </li>`,
          )}
        </ul>`
    }
  </nav>`;
}

export function playgroundPage(ctx: PlaygroundContext, place: Place, chat?: Conversation, notice?: string): string {
  const { t } = ctx;
  const bot = place.bot;
  const talking = bot !== undefined && chat !== undefined;
  return layout(
    ctx,
    html`<h1>${t.title}</h1>
      <p class="sub">${t.lead}</p>
      <div class="play">
        ${picker(ctx, place)}
        ${talking ? conversation(ctx, place, bot, chat, notice) : html`<section class="card"><p>${t.pickBot}</p></section>`}
      </div>`,
    talking,
  );
}

/** The conversation with the bot and the composer. */
function conversation(ctx: PlaygroundContext, place: Place, bot: BotChoice, chat: Conversation, notice?: string): Html {
  const { t } = ctx;
  const form = chatForm(ctx, place);
  const heading = place.group === undefined ? `${bot.name} · ${t.privateChat}` : `${place.group.name} · ${bot.name}`;
  return html`<section class="card" aria-labelledby="conv">
    <h2 id="conv">${heading}</h2>
    <ol
      tabindex="0"
      id="log"
      class="log"
      aria-label="${t.conversation}"
      data-cursor="${chat.cursor}"
      data-query="${query(place)}"
    >
      ${chat.items.map((i) => messageItem(i, ctx.userId, chat.names, form, t))}
    </ol>
    <p class="empty fine">${t.empty}</p>
    <p id="status" class="fine" role="status">${notice ?? ''}</p>
    <form class="composer live" method="post" action="${PLAYGROUND}/send">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      <input type="hidden" name="bot" value="${bot.user_id}" />
      ${place.group !== undefined && html`<input type="hidden" name="group" value="${place.group.group_id}" />`}
      <label for="text">${t.message}</label>
      <div class="send">
        <input id="text" type="text" name="text" maxlength="4000" required autocomplete="off" />
        <button type="submit" class="primary">${t.send}</button>
      </div>
      ${
        place.group !== undefined &&
        html`<label class="choice"
          ><input type="checkbox" name="mention" value="${bot.user_id}" checked /> ${t.mentionBot(bot.name)}</label
        >`
      }
    </form>
  </section>`;
}

/** A failure, in the playground's frame. */
export function playgroundMessagePage(
  ctx: Pick<PlaygroundContext, 'lang' | 't'>,
  heading: string,
  text: string,
  back: boolean,
): string {
  return layout(ctx, headedCard(heading, text, back && html`<p><a href="${PLAYGROUND}/">${ctx.t.back}</a></p>`));
}

/** The conversation's items as the live script receives them. */
export const liveItems = (ctx: PlaygroundContext, place: Place, chat: Conversation) =>
  chat.items.map((item) => ({
    id: `m-${item.row.message_id}`,
    version: String(item.changed),
    html: messageItem(item, ctx.userId, chat.names, chatForm(ctx, place), ctx.t).text,
  }));
