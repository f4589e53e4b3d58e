// The registry of bench cases, in the order `npm run bench` runs them.
import type { BenchCase } from '../lib/types.js';
import { groupSendCase } from './group-send.js';
import { ingestCase } from './ingest.js';
import { ingestMessagesCase } from './ingest-messages.js';
import { longPollsCase } from './long-polls.js';
import { scalingCase } from './scaling.js';
import { telegramSendCase } from './telegram-send.js';
import { transfersCase } from './transfers.js';
import { twoInstancesCase } from './two-instances.js';
import { userInfoCase } from './user-info.js';

export const cases: readonly BenchCase[] = [
  userInfoCase,
  groupSendCase,
  telegramSendCase,
  scalingCase,
  transfersCase,
  ingestCase,
  ingestMessagesCase,
  longPollsCase,
  twoInstancesCase,
];
