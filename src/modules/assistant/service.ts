// The bot-creation assistant: a built-in bot users talk to in private chat, in the style of a
// bot-father. Each message it gets is one turn: it reads where the conversation stands, acts
// through the developers' service (what may be typed is checked by lib/input-rules.ts), answers
// into the outbox and saves the new state, all in the transaction of the event batch that brought the message.
import type { Work } from '../../db/work.js';
import { AppError, Errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import * as rules from '../../lib/input-rules.js';
import { ASSISTANT_USER_ID } from '../../db/migrations/0003_developers.js';
import type { DeliveryService, VettedWebhookUrl } from '../delivery/index.js';
import type { AppSummary, DevelopersService } from '../developers/index.js';
import { insertOutbox } from '../messaging/index.js';
import { BOT_COMMANDS, loadState, saveState, type Ask, type BotCommand, type State } from './conversation.js';
import * as say from './texts.js';

export { ASSISTANT_USER_ID };

/** Webhook URLs the message names, checked before the transaction opened. */
export type VettedUrls = ReadonlyMap<string, VettedWebhookUrl>;

export interface AssistantMessage {
  message_id: string;
  from_user_id: string;
  kind: string;
  text: string;
}

interface Turn {
  readonly w: Work;
  readonly user: string;
  readonly urls: VettedUrls;
  /**
   * The step this message answers (the step it found, or the one its command opened with an inline
   * argument): a refused answer asks that step's question again.
   */
  answering?: State | undefined;
}

interface Answer {
  reply: string;
  next?: State | undefined;
}

const URL_TOKEN = /^https?:\/\//i;
/** At most this many URLs of one message are looked up. */
const MAX_URLS = 3;

const isBotCommand = (c: string): c is BotCommand => (BOT_COMMANDS as readonly string[]).includes(c);
const PROFILE_ASKS = { setname: 'name', setdescription: 'description', setavatar: 'avatar' } as const;
const ask = (a: Ask, bot: string): Answer => ({ reply: say.ASK_TEXT[a], next: { step: 'answer', ask: a, bot } });

/** "/cmd@name rest" -> ["cmd", "rest"]; undefined for text that is not a command. */
function commandOf(text: string): [string, string] | undefined {
  const m = /^\/([A-Za-z_]+)(?:@\S+)?(?:\s+([\s\S]*))?$/.exec(text);
  return m === null ? undefined : [(m[1] ?? '').toLowerCase(), (m[2] ?? '').trim()];
}

const firstWord = (text: string): [string, string] => {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(text);
  return m === null ? ['', ''] : [m[1] ?? '', m[2] ?? ''];
};

export class AssistantService {
  readonly userId = ASSISTANT_USER_ID;

  constructor(
    private readonly developers: DevelopersService,
    private readonly delivery: DeliveryService,
    private readonly siteUrl: string,
  ) {}

  /** Looks up the URLs a message to the assistant names: outside the transaction, as DNS is slow. */
  async prepare(text: string): Promise<VettedUrls> {
    const tokens = text.split(/\s+/).filter((t) => URL_TOKEN.test(t));
    const vetted = await Promise.all(tokens.slice(0, MAX_URLS).map((t) => this.delivery.vet(t)));
    return new Map(vetted.map((v) => [v.url, v]));
  }

  async receive(w: Work, m: AssistantMessage, urls: VettedUrls): Promise<void> {
    const turn: Turn = { w, user: m.from_user_id, urls };
    const state = await loadState(w.tx, m.from_user_id);
    const text = m.text.trim();
    let answer: Answer;
    try {
      answer =
        (m.kind === 'text' || m.kind === 'command') && text !== ''
          ? await this.respond(turn, state, text)
          : { reply: 'I understand text only. Send /help to see what I can do.', next: state };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      // A mistyped answer may be typed again; any other refusal ends the step. A command's own
      // argument refused leaves the conversation on that command's question, not on the step the
      // command left: "Try again" then means the command's question.
      answer = {
        reply: say.explain(e),
        next: e.def === Errors.invalidRequest || e.def === Errors.paramError ? turn.answering : undefined,
      };
    }
    await saveState(w.tx, m.from_user_id, answer.next, w.now);
    // Last in the batch's transaction: the outbox's commit-order lock (PostgreSQL) is then held for
    // the commit only, not for the rest of the batch, which every bot's send would wait behind.
    w.last(() =>
      insertOutbox(w.tx, [
        {
          message_id: newId('msg'),
          chat_type: 'private',
          group_id: null,
          to_user_id: m.from_user_id,
          from_user_id: ASSISTANT_USER_ID,
          app_id: null,
          object_name: 'text',
          title: null,
          content: answer.reply,
          normalized: null,
          mention_user_ids: '[]',
          reply_markup: null,
          created_at: w.now,
          edited_at: null,
        },
      ]),
    );
  }

  private async respond(t: Turn, state: State | undefined, text: string): Promise<Answer> {
    const command = commandOf(text);
    if (command === undefined) return this.answerStep(t, state, text);
    const [name, rest] = command;
    if (name === 'skip' && state?.step === 'newbot_description') return this.newBot(t, state.name, '');
    switch (name) {
      case 'start':
      case 'help':
        return { reply: say.helpText(this.siteUrl) };
      case 'cancel':
        return { reply: state === undefined ? 'Nothing to cancel. /help lists what I can do.' : 'Cancelled.' };
      case 'newbot':
        await this.developers.assertBotRoom(t.w, t.user);
        if (rest !== '') return this.answerStep(t, { step: 'newbot_name' }, rest);
        return {
          reply: 'Alright, a new bot. How are we going to call it? Send its name.',
          next: { step: 'newbot_name' },
        };
      case 'mybots':
        return { reply: await this.myBots(t) };
      default:
        if (isBotCommand(name)) return this.botCommand(t, name, rest);
        return { reply: `I don't know /${name}. Send /help to see what I can do.` };
    }
  }

  private async answerStep(t: Turn, state: State | undefined, text: string): Promise<Answer> {
    t.answering = state;
    switch (state?.step) {
      case undefined:
        return { reply: 'Send /help to see what I can do.' };
      case 'newbot_name':
        // The name is checked now, so a bad one is asked again before the description.
        return {
          reply: 'Good. Now send a short description of the bot, or /skip.',
          next: { step: 'newbot_description', name: rules.name(text) },
        };
      case 'newbot_description':
        return this.newBot(t, state.name, text);
      case 'choose_bot': {
        const bot = await this.findBot(t, text);
        if (bot === undefined)
          return { reply: `${await this.myBots(t)}\n\nSend the number of the bot, or /cancel.`, next: state };
        return this.onBot(t, state.command, bot, '');
      }
      case 'answer':
        return this.answer(t, state.ask, state.bot, text);
    }
  }

  private async newBot(t: Turn, name: string, description: string): Promise<Answer> {
    const bot = await this.developers.createBot(t.w, t.user, { name, description });
    return {
      reply: [
        `Done! ${name} is created. Its bot id is ${bot.bot_user_id}.`,
        '',
        `App Key: ${bot.api_key}`,
        `App Secret: ${bot.app_secret}`,
        `Telegram token: ${bot.telegram_token}`,
        `EVM address: ${bot.evm_address}`,
        '',
        'Send the App Key as X-API-KEY when the bot calls the API. Keep the App Secret safe: I will not show it again (/resetsecret issues a new one).',
        'The bot receives updates by long polling (getUpdates) until you /setwebhook.',
      ].join('\n'),
    };
  }

  private async bots(t: Turn): Promise<AppSummary[]> {
    return (await this.developers.overview(t.user, t.w.tx)).filter((a) => a.kind === 'bot');
  }

  private async myBots(t: Turn): Promise<string> {
    const bots = await this.bots(t);
    if (bots.length === 0) return 'You have no bots yet. /newbot creates one.';
    return ['Your bots:', ...bots.map((b, i) => `${i + 1}. ${b.name} (bot id ${b.bot_user_id ?? ''})`)].join('\n');
  }

  /** A bot of the user named by its number in /mybots, its id or its name. */
  private async findBot(t: Turn, ref: string): Promise<string | undefined> {
    const bots = await this.bots(t);
    const wanted = ref.trim().toLowerCase();
    const byNumber = /^\d{1,2}$/.test(wanted) ? bots[Number(wanted) - 1] : undefined;
    const bot = byNumber ?? bots.find((b) => b.bot_user_id === ref.trim() || b.name.toLowerCase() === wanted);
    return bot?.bot_user_id ?? undefined;
  }

  private async botCommand(t: Turn, command: BotCommand, rest: string): Promise<Answer> {
    const bots = await this.bots(t);
    if (bots.length === 0) {
      if (command === 'deletebot') return { reply: say.explain(new AppError(Errors.botNotDeletable)) };
      return { reply: 'You have no bots yet. /newbot creates one.' };
    }
    const [first, after] = firstWord(rest);
    const named = first === '' ? undefined : await this.findBot(t, first);
    if (named !== undefined) return this.onBot(t, command, named, after);
    const only = bots.length === 1 ? bots[0]?.bot_user_id : undefined;
    if (only !== undefined && only !== null) return this.onBot(t, command, only, rest);
    return {
      reply: `${await this.myBots(t)}\n\nWhich one? Send its number.`,
      next: { step: 'choose_bot', command },
    };
  }

  private async onBot(t: Turn, command: BotCommand, bot: string, rest: string): Promise<Answer> {
    const { w, user } = t;
    const view = () => this.developers.bot(user, bot, w.tx);
    switch (command) {
      case 'token': {
        const b = await view();
        return {
          reply: `App Key of ${b.name}: ${b.api_key}\nTelegram token of ${b.name}: ${b.telegram_token}\nSend the App Key as X-API-KEY, or use the Telegram token with a Telegram bot library (its API root is this server's /telegram). The App Secret is not shown again; /resetsecret issues a new one.`,
        };
      }
      case 'revoke': {
        const b = await view();
        const key = await this.developers.resetKey(w, user, b.app_id, 'bot');
        const { telegram_token } = await view();
        return {
          reply: `New App Key of ${b.name}: ${key}\nNew Telegram token of ${b.name}: ${telegram_token}\nThe old key stopped working.`,
        };
      }
      case 'resetsecret': {
        const b = await view();
        const secret = await this.developers.resetSecret(w, user, b.app_id, 'bot');
        return {
          reply: `New App Secret of ${b.name}: ${secret}\nThe old secret stopped working. I will not show this one again.`,
        };
      }
      case 'deletewebhook':
        await this.developers.clearWebhook(w, user, bot);
        return { reply: 'Webhook cleared. The bot receives updates by long polling (getUpdates) again.' };
      case 'info':
        return { reply: say.botInfo(await view()) };
      case 'deletebot':
        return this.developers.deleteBot(w, user, bot);
      case 'setprivacy':
        return ask('private_messages', bot);
      case 'setwebhook':
        return rest === '' ? ask('webhook_url', bot) : this.answer(t, 'webhook_url', bot, rest);
      case 'apply':
        return rest === '' ? ask('permission', bot) : this.answer(t, 'permission', bot, rest);
      case 'setname':
      case 'setdescription':
      case 'setavatar': {
        const field = PROFILE_ASKS[command];
        return rest === '' ? ask(field, bot) : this.answer(t, field, bot, rest);
      }
    }
  }

  private async answer(t: Turn, question: Ask, bot: string, text: string): Promise<Answer> {
    const { w, user } = t;
    t.answering = { step: 'answer', ask: question, bot };
    const again = (hint: string): Answer => ({
      reply: `${hint}\n\n${say.ASK_TEXT[question]}`,
      next: { step: 'answer', ask: question, bot },
    });
    const choice = text.trim().toLowerCase();
    switch (question) {
      case 'webhook_url': {
        const [url, format] = firstWord(text.trim());
        const vetted = t.urls.get(url);
        if (vetted === undefined) return again('That is not a URL.');
        if (format !== '' && format !== 'flat' && format !== 'update')
          return again('The format after the URL is "flat" or "update".');
        const set = await this.developers.setWebhook(w, user, bot, vetted, format === '' ? undefined : format);
        return {
          reply: [
            `Webhook set: updates go to ${set.url} (${set.payload_format} format). Long polling is off.`,
            `Webhook Key: ${set.webhook_key}`,
            `Webhook secret: ${set.webhook_secret}`,
            'Every callback carries the key as X-API-KEY and is signed with it; a Standard Webhooks library verifies the signature with the secret as it is. Check one of them before trusting a callback. /deletewebhook switches back to long polling.',
          ].join('\n'),
        };
      }
      case 'private_messages': {
        const policy = say.PRIVATE_CHOICES[choice];
        if (policy === undefined) return again("That isn't one of the choices.");
        await this.developers.setPrivacy(w, user, bot, { private_messages: policy });
        return ask('group_invites', bot);
      }
      case 'group_invites': {
        const policy = say.INVITE_CHOICES[choice];
        if (policy === undefined) return again("That isn't one of the choices.");
        await this.developers.setPrivacy(w, user, bot, { group_invites: policy });
        return { reply: `Privacy settings saved. ${say.privacyText(await this.developers.bot(user, bot, w.tx))}` };
      }
      case 'permission': {
        const permission = say.PERMISSION_CHOICES[choice];
        if (permission === undefined) return again("That isn't one of the permissions.");
        await this.developers.apply(w, user, bot, permission);
        return {
          reply: `Application filed: ${say.PERMISSION_WORDS[permission]}. It is pending the platform's review; /info shows its status.`,
        };
      }
      case 'name':
        await this.developers.setProfile(w, user, bot, { name: text });
        return { reply: 'Name changed.' };
      case 'description':
        await this.developers.setProfile(w, user, bot, { description: text });
        return { reply: 'Description changed.' };
      case 'avatar':
        await this.developers.setProfile(w, user, bot, { avatar: choice === 'none' ? '' : text });
        return { reply: 'Avatar changed.' };
    }
  }
}
