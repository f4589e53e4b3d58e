// One chat message as HTML: a bot's rich text (links, bold, italic and coloured text, images) and
// its inline keyboard, a user's text and mentions. Everything a sender wrote is escaped; only https
// links and images are kept, and colours are the font tag's checked #RGB/#RRGGBB values.
import { CSRF_FIELD } from '../../http/pages/csrf.js';
import { html, type Html, type Part } from '../../http/pages/html.js';
import { parseIdList } from '../../lib/json.js';
import {
  type ImageBlock,
  type InlineKeyboard,
  isColor,
  isHttpsUrl,
  type KeyboardButton,
  layout,
  parseKeyboard,
  parseMarkup,
  type Segment,
} from '../messaging/index.js';
import type { ChatItem } from './service.js';

/** What every button form carries: the chat it belongs to and the CSRF token. */
export interface ChatForm {
  action: string;
  csrf: string;
  bot: string;
  group?: string;
}

export interface MessageTexts {
  mentions: string;
  opensLink: string;
}

const link = (href: string, body: Part): Html =>
  isHttpsUrl(href)
    ? html`<a href="${href}" rel="noopener noreferrer nofollow" target="_blank">${body}</a>`
    : html`${body}`;

function segment(s: Segment): Part {
  if (s.kind === 'text') return s.text;
  if (s.kind === 'a') return link(s.href, s.text);
  if (s.kind !== 'font') return '';
  let out: Html = html`${s.text}`;
  if (s.italic) out = html`<em>${out}</em>`;
  if (s.bold) out = html`<strong>${out}</strong>`;
  // The font element's colour is an attribute, not a style: the page's CSP allows no inline style.
  return s.color !== null && isColor(s.color) ? html`<font color="${s.color}">${out}</font>` : out;
}

const size = (v: ImageBlock['height'] | null): string | false => v !== null && String(v);

const image = (b: ImageBlock): Part =>
  isHttpsUrl(b.src) &&
  html`<p class="pic">
    ${link(b.href ?? '', html`<img src="${b.src}" alt="" height="${size(b.height)}" ${b.width !== null && html`width="${size(b.width)}"`} />`)}
  </p>`;

function richBody(title: string | null, content: string): Html {
  const parsed = parseMarkup(content);
  if (!parsed.ok) return html`<p class="text">${content}</p>`;
  const l = layout(title, parsed.markup);
  return html`${l.head.map(image)} ${l.title !== null && html`<p class="title">${l.title}</p>`}
    <p class="text">${l.content.map(segment)}</p>
    ${l.foot.map(image)}`;
}

function button(b: KeyboardButton, form: ChatForm, messageId: string, t: MessageTexts): Html {
  const label = html`${b.text ?? ''}${b.sub_text !== undefined && html` <small>${b.sub_text}</small>`}`;
  const href = b.url ?? (typeof b.login_url === 'string' ? b.login_url : b.login_url?.url);
  if (href !== undefined)
    return html`<span class="key">${link(href, html`${label} <span class="sr">${t.opensLink}</span>`)}</span>`;
  // A button with no action (decisions.md section 7) is a label: a press would name no button.
  if (b.callback_data === undefined) return html`<span class="key">${label}</span>`;
  return html`<form class="key live" method="post" action="${form.action}">
    <input type="hidden" name="${CSRF_FIELD}" value="${form.csrf}" />
    <input type="hidden" name="bot" value="${form.bot}" />
    ${form.group !== undefined && html`<input type="hidden" name="group" value="${form.group}" />`}
    <input type="hidden" name="message" value="${messageId}" />
    <input type="hidden" name="data" value="${b.callback_data}" />
    <button type="submit" class="secondary">${label}</button>
  </form>`;
}

const keyboard = (k: InlineKeyboard, form: ChatForm, messageId: string, t: MessageTexts): Html =>
  html`<div class="keyboard">
    ${k.inline_keyboard.map((row) => html`<div class="keys">${row.map((b) => button(b, form, messageId, t))}</div>`)}
  </div>`;

const time = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** The message as a list item; its id and version let the live script replace an edited one. */
export function messageItem(
  item: ChatItem,
  viewer: string,
  names: ReadonlyMap<string, string>,
  form: ChatForm,
  t: MessageTexts,
): Html {
  const { row } = item;
  const from = names.get(row.from_user_id) ?? row.from_user_id;
  const mentions = parseIdList(row.mention_user_ids);
  const who = item.kind === 'bot' ? 'bot' : row.from_user_id === viewer ? 'mine' : 'other';
  let body: Html;
  let keys: Part = false;
  if (item.kind === 'user') {
    body = html`<p class="text">${item.row.text}</p>`;
  } else {
    const r = item.row;
    body =
      r.normalized !== null
        ? richBody(r.title, r.content)
        : html`${r.title !== null && html`<p class="title">${r.title}</p>`}
            <p class="text">${r.content}</p>`;
    const parsed = parseKeyboard(r.reply_markup);
    keys = parsed.ok && parsed.keyboard !== null && keyboard(parsed.keyboard, form, r.message_id, t);
  }
  return html`<li class="msg ${who}" id="m-${row.message_id}" data-version="${item.changed}">
    <p class="meta">
      <strong>${from}</strong> <time datetime="${new Date(row.created_at).toISOString()}">${time(row.created_at)}</time>
    </p>
    ${body}
    ${mentions.length > 0 && html`<p class="mentions">${t.mentions} ${mentions.map((id) => html`<span class="at">@${names.get(id) ?? id}</span> `)}</p>`}
    ${keys}
  </li>`;
}
