// The playground's texts in English and Simplified Chinese.
import { dictionary } from '../../http/pages/lang.js';

const en = {
  title: 'Playground',
  brand: 'Playground',
  lead: 'Talk to a bot as yourself: messages go through the same path as the community application’s, so delivery rules, privacy settings and permissions apply.',
  bots: 'Bots',
  chats: 'Chats',
  roles: { own: 'your bot', assistant: 'assistant', demo: 'demo bot' },
  privateChat: 'Private chat',
  pickBot: 'Pick a bot to talk to.',
  empty: 'No messages yet. Say hello.',
  conversation: 'Conversation',
  message: 'Message',
  send: 'Send',
  mentionBot: (name: string) => `Mention ${name}`,
  mentions: 'Mentions:',
  opensLink: '(opens a link)',
  /** A refusal by its reason, the only ones the playground's events can meet (a `?refused=` names one). */
  refusals: {
    unknown_user: 'The platform refused the message: it does not know a user it names (unknown_user).',
    unknown_group: 'The platform refused the message: it does not know the group (unknown_group).',
    duplicate_message: 'The platform refused the message: it has one with that id already (duplicate_message).',
    unknown_message: 'The platform refused the press: it does not know that message (unknown_message).',
    not_a_bot_message: 'The platform refused the press: a bot did not send that message (not_a_bot_message).',
    duplicate_callback: 'The platform refused the press: it has it already (duplicate_callback).',
    no_keyboard: 'The platform refused the press: the message has no buttons now (no_keyboard).',
    unknown_button: 'The platform refused the press: the message no longer has that button (unknown_button).',
    not_in_chat: 'The platform refused the press: you are not in that chat (not_in_chat).',
  },
  /** A refusal for a reason the table does not know yet. */
  refused: 'The platform refused it.',
  pressed: 'Button pressed: the bot received a callback query.',
  notSignedIn: 'Open the playground in the application',
  notSignedInText:
    'You are not signed in here. Open the playground from inside the application, where you are signed in.',
  badFormText: 'It has expired or was not sent from this page. Reload the page and try again.',
  back: 'Back to the playground',
  developers: 'Developer site',
};

export const TEXTS = dictionary<typeof en>({
  en,
  'zh-CN': {
    title: '调试台',
    brand: '调试台',
    lead: '以你自己的身份和机器人对话：消息与社区应用走同一条路径，投递规则、隐私设置和权限同样生效。',
    bots: '机器人',
    chats: '会话',
    roles: { own: '你的机器人', assistant: '助手', demo: '演示机器人' },
    privateChat: '私聊',
    pickBot: '选择一个机器人开始对话。',
    empty: '还没有消息，打个招呼吧。',
    conversation: '对话',
    message: '消息',
    send: '发送',
    mentionBot: (name: string) => `提及 ${name}`,
    mentions: '提及：',
    opensLink: '（打开链接）',
    refusals: {
      unknown_user: '平台拒绝了这条消息：其中提到的用户平台并不知道（unknown_user）。',
      unknown_group: '平台拒绝了这条消息：平台并不知道这个群组（unknown_group）。',
      duplicate_message: '平台拒绝了这条消息：已有相同 id 的消息（duplicate_message）。',
      unknown_message: '平台拒绝了这次点击：平台并不知道那条消息（unknown_message）。',
      not_a_bot_message: '平台拒绝了这次点击：那条消息不是机器人发送的（not_a_bot_message）。',
      duplicate_callback: '平台拒绝了这次点击：已经收到过（duplicate_callback）。',
      no_keyboard: '平台拒绝了这次点击：这条消息现在没有按钮（no_keyboard）。',
      unknown_button: '平台拒绝了这次点击：这条消息已经没有那个按钮（unknown_button）。',
      not_in_chat: '平台拒绝了这次点击：你不在那个会话中（not_in_chat）。',
    },
    refused: '平台拒绝了它。',
    pressed: '已点击按钮：机器人收到了回调查询。',
    notSignedIn: '请在应用内打开调试台',
    notSignedInText: '你在这里没有登录。请在已登录的应用内打开调试台。',
    badFormText: '表单已过期或不是从本页面提交的。请刷新页面后重试。',
    back: '返回调试台',
    developers: '开发者网站',
  },
});

export type PlaygroundTexts = (typeof TEXTS)['en'];
