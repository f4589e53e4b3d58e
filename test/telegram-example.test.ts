// examples/grammy-echo-bot runs as its README says (node index.mjs <api root> <token>) against the
// app listening on a real port: a user's message reaches it by long polling and its echo is sent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { adminHeaders, describeStores } from './helpers/app.js';
import { createUsers, type TestUser } from './helpers/factories.js';
import { newBot, say } from './helpers/delivery.js';
import * as telegram from '../src/modules/telegram/repo.js';

interface OutboxItem {
  from_user_id: string;
  to_user_id?: string;
  content: string;
}

await describeStores('the grammY example bot', (t) => {
  it('echoes a user message, and stops on SIGTERM', { timeout: 30_000 }, async () => {
    await t().app.listen({ host: '127.0.0.1', port: 0 });
    const apiRoot = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/telegram`;
    const [alice] = (await createUsers(t().app, 1)) as [TestUser];
    const bot = await newBot(t().app, 'example bot');
    const id = await telegram.telegramIdOf(t().services.db.k, bot.bot_user_id);
    assert.ok(id !== undefined, 'the bot has a number');
    const child = spawn(process.execPath, ['examples/grammy-echo-bot/index.mjs', apiRoot, `${id}:${bot.api_key}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      // The bot prints its line once getMe has answered and polling begins.
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      assert.match(line.toString(), new RegExp(`^@bot${id} is running against `), 'start-up line');
      await say(t().app, { from: alice.user_id, to: bot.bot_user_id, text: 'hello there' });
      const echo = async (): Promise<OutboxItem | undefined> => {
        const r = await t().app.inject({
          method: 'GET',
          url: '/internal/v1/messages?limit=100',
          headers: adminHeaders,
        });
        assert.equal(r.statusCode, 200, r.body);
        return r.json<{ messages: OutboxItem[] }>().messages.find((m) => m.from_user_id === bot.bot_user_id);
      };
      let reply = await echo();
      while (reply === undefined) {
        await new Promise((resolve) => setImmediate(resolve));
        reply = await echo();
      }
      assert.deepEqual([reply.to_user_id, reply.content], [alice.user_id, 'echo: hello there']);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });
});
