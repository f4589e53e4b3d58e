// The bot's "Telegram token" (telegram-api.md "Addressing"): what Telegram libraries take as the
// token, `<bot id>:<App Key>`. It follows the App Key, so a key reset changes it.
export const telegramToken = (botNumber: number, apiKey: string): string => `${String(botNumber)}:${apiKey}`;
