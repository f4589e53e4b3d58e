// The registry of bench cases, in the order `npm run bench` runs them.
import type { BenchCase } from '../lib/types.js';
import { groupSendCase } from './group-send.js';
import { ingestCase } from './ingest.js';
import { scalingCase } from './scaling.js';
import { transfersCase } from './transfers.js';
import { userInfoCase } from './user-info.js';

export const cases: readonly BenchCase[] = [userInfoCase, groupSendCase, scalingCase, transfersCase, ingestCase];
