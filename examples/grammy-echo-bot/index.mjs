// A Telegram bot written with grammY, unchanged except for its API root and token:
//   node index.mjs <api root> <token>     or     TELEGRAM_API_ROOT=... BOT_TOKEN=... node index.mjs
// The API root is {base_url}/telegram; the token is the bot's "Telegram token" (<bot id>:<App Key>).
import { Bot, InlineKeyboard } from 'grammy';

const apiRoot = process.argv[2] ?? process.env.TELEGRAM_API_ROOT ?? 'http://127.0.0.1:8080/telegram';
const token = process.argv[3] ?? process.env.BOT_TOKEN;
if (token === undefined) {
  console.error('usage: node index.mjs <api root> <token>   (or set TELEGRAM_API_ROOT and BOT_TOKEN)');
  process.exit(2);
}

const bot = new Bot(token, { client: { apiRoot } });

bot.command('start', (ctx) =>
  ctx.reply('Hello! Send me text and I echo it. Do you like it here?', {
    reply_markup: new InlineKeyboard().text('Yes', 'yes').text('No', 'no'),
  }),
);
bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
bot.on('callback_query:data', async (ctx) => {
  await ctx.answerCallbackQuery({ text: ctx.callbackQuery.data === 'yes' ? 'Glad to hear it' : 'Sorry to hear it' });
  await ctx.editMessageText(`You answered: ${ctx.callbackQuery.data}`);
});

process.once('SIGINT', () => void bot.stop());
process.once('SIGTERM', () => void bot.stop());
await bot.start({ onStart: (me) => console.log(`@${me.username} is running against ${apiRoot}`) });
