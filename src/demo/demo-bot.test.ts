// The demo bot answers: a message gets an echo with a Yes/No keyboard, a press gets answered.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminHeaders, describeStores } from '../../test/helpers/app.js';
import { applyEvents, uid } from '../../test/helpers/factories.js';
import { say } from '../../test/helpers/delivery.js';
import type { App } from '../http/types.js';
import { startDemoBot, type DemoBot } from './demo-bot.js';
import { ensureDemo, type Demo } from './demo.js';

interface Sent {
  id: string;
  from_user_id: string;
  content: string;
}

/** Polls the outbox until the bot has sent `n` messages (the bot works asynchronously). */
async function botMessages(app: App, botId: string, n: number): Promise<Sent[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await app.inject({ method: 'GET', url: '/internal/v1/messages?limit=1000', headers: adminHeaders });
    assert.equal(res.statusCode, 200, res.body);
    const sent = res.json<{ messages: Sent[] }>().messages.filter((m) => m.from_user_id === botId);
    if (sent.length >= n || Date.now() > deadline) return sent;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

await describeStores('demo bot', (t) => {
  let demo: Demo;
  let bot: DemoBot;
  before(async () => {
    demo = await ensureDemo(t().services);
    bot = startDemoBot(t().app, demo.bot.api_key);
  });
  after(async () => bot.stop());

  it('echoes a private message with a Yes/No keyboard, then answers the press', async () => {
    const botId = demo.bot.bot_user_id;
    await say(t().app, { from: demo.userId, to: botId, text: 'hello bot' });
    const [echo] = await botMessages(t().app, botId, 1);
    assert.ok(echo !== undefined, 'the demo bot replied');
    assert.match(echo.content, /You said: hello bot/, JSON.stringify(echo));
    // A press is accepted only on a message with an inline keyboard: this one has it.

    await applyEvents(t().app, [
      {
        type: 'button.clicked',
        data: { callback_id: uid('cb'), message_id: echo.id, user_id: demo.userId, data: 'Yes' },
      },
    ]);
    const sent = await botMessages(t().app, botId, 2);
    assert.equal(sent[1]?.content, 'You pressed “Yes”.', JSON.stringify(sent));
  });

  it('stops at once while a poll is waiting', async () => {
    const started = Date.now();
    await bot.stop();
    assert.ok(Date.now() - started < 5_000, 'stop ends the waiting poll instead of sitting out its timeout');
    bot = startDemoBot(t().app, demo.bot.api_key);
  });
});
