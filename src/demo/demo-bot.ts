// With --demo only: the demo bot answers, so a newcomer can talk to it in the playground at once.
// It is an ordinary long-polling bot calling the public bot API (in-process, through inject): it
// echoes text, offers a Yes/No keyboard and answers the presses.
import { setTimeout } from 'node:timers/promises';
import type { App } from '../http/types.js';

/** Seconds a poll waits for an update; stop() ends a waiting poll at once anyway. */
const POLL_TIMEOUT_S = 25;
/** Pause after a failed call (a webhook set on the bot, the store briefly away). */
const BACKOFF_MS = 5_000;
const CHOICES = ['Yes', 'No'];

interface Envelope {
  ok: boolean;
  result?: unknown;
  message?: string;
}

interface Chat {
  id: string;
  type: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function chatOf(message: unknown): Chat | undefined {
  if (!isRecord(message) || !isRecord(message.chat)) return undefined;
  const { id, type } = message.chat;
  return typeof id === 'string' && typeof type === 'string' ? { id, type } : undefined;
}

const fromBot = (message: Record<string, unknown>): boolean => isRecord(message.from) && message.from.is_bot === true;

export interface DemoBot {
  /** Ends the poll in flight and waits for the loop to finish. */
  stop(): Promise<void>;
}

export function startDemoBot(app: App, apiKey: string): DemoBot {
  const stopped = new AbortController();
  const { signal } = stopped;
  // A call, not a property read: stop() flips it while a poll is awaited.
  const ending = () => signal.aborted;
  let offset = 0;

  const call = async (method: string, params: Record<string, unknown>): Promise<Envelope> => {
    const res = await app.inject({
      method: 'POST',
      url: `/openapi/bot/${method}`,
      headers: { 'x-api-key': apiKey },
      payload: params,
    });
    return res.json<Envelope>();
  };
  const send = (chat: Chat, text: string, keyboard: boolean) =>
    call('sendMessage', {
      chat_id: chat.id,
      chat_type: chat.type,
      text,
      parse_mode: 'text',
      ...(keyboard
        ? { reply_markup: JSON.stringify({ inline_keyboard: [CHOICES.map((c) => ({ text: c, callback_data: c }))] }) }
        : {}),
    });

  const handle = async (update: Record<string, unknown>): Promise<void> => {
    const { message, callback_query: query } = update;
    if (isRecord(message) && !fromBot(message)) {
      const chat = chatOf(message);
      const text = typeof message.text === 'string' ? message.text : '';
      if (chat !== undefined) await send(chat, `You said: ${text}\nDo you like this bot?`, true);
    } else if (isRecord(query) && typeof query.id === 'string') {
      const data = typeof query.data === 'string' ? query.data : '';
      await call('answerCallbackQuery', { callback_query_id: query.id, text: `You pressed ${data}` });
      const chat = chatOf(query.message);
      if (chat !== undefined) await send(chat, `You pressed “${data}”.`, false);
    }
  };

  const pause = () => setTimeout(BACKOFF_MS, undefined, { signal }).catch(() => undefined);

  const loop = async (): Promise<void> => {
    while (!ending()) {
      try {
        const got = await call('getUpdates', { offset, timeout: POLL_TIMEOUT_S });
        if (ending()) break;
        if (!got.ok || !Array.isArray(got.result)) throw new Error(got.message ?? 'getUpdates failed');
        for (const update of got.result) {
          if (!isRecord(update) || typeof update.id !== 'number') continue;
          offset = update.id + 1;
          await handle(update);
        }
      } catch (e) {
        if (ending()) break;
        app.log.warn({ err: e }, 'demo bot: retrying');
        await pause();
      }
    }
  };
  const running = loop();

  return {
    async stop() {
      stopped.abort();
      // A newer getUpdates ends the waiting one (409 terminated). The loop's own poll may still be
      // on its way when the first one arrives, so polls are ended until the loop has noticed.
      const state = { finished: false };
      const done = running.then(() => {
        state.finished = true;
      });
      while (!state.finished) {
        await call('getUpdates', { offset, timeout: 0, limit: 1 }).catch(() => undefined);
        await Promise.race([done, setTimeout(100)]);
      }
    },
  };
}
