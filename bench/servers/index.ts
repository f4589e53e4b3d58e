// Every server kind a bench case can start, by name.
import type { ServerKind } from '../lib/types.js';
import { bareServer } from './bare.js';
import { deliveryServer, deliverySeed } from './delivery.js';
import { ingestServer } from './ingest.js';
import { platformServer } from './platform.js';

export const servers: Record<string, ServerKind | undefined> = Object.fromEntries(
  [bareServer, platformServer, deliverySeed, deliveryServer, ingestServer].map((s) => [s.name, s]),
);
