import { Type, type TSchema } from 'typebox';
import { operatorErrors } from '../../http/internal.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';

export const EVENTS_BODY_LIMIT = 4 * 1024 * 1024;

// Keys beside `events` are ignored, as unknown keys of an event and of its data are (operator-api.md
// calls malformed only an unknown type or a missing or ill-typed field).
const Batch = Type.Object({
  events: Type.Array(
    // Each event (envelope and data) is checked by the batch, so a bad one is reported with its index.
    Type.Unknown({ description: '{"id": "1 to 128 characters", "type": "...", "data": {...}}' }),
    { maxItems: 1000 },
  ),
});

const BatchResult = Type.Object({
  applied: Type.Integer(),
  duplicates: Type.Integer(),
  refused: Type.Array(Type.Object({ id: Type.String(), reason: Type.String() })),
});

/** What the document shows: each event type with its `data` (the batch checks them itself, above). */
const documentedBatch = (events: { type: string; schema: TSchema }[]) =>
  Type.Object({
    events: Type.Array(
      Type.Union(
        events.map(({ type, schema }) =>
          Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }), type: Type.Literal(type), data: schema }),
        ),
      ),
      { maxItems: 1000 },
    ),
  });

export function eventRoutes(app: App, s: Services): void {
  app.post(
    '/internal/v1/events',
    {
      bodyLimit: EVENTS_BODY_LIMIT,
      config: { checksNul: true },
      schema: {
        tags: ['Operator'],
        summary: 'Apply a batch of community events (atomic, idempotent by id)',
        body: Batch,
        documentedBody: documentedBatch(s.events.schemas),
        response: { 200: BatchResult, ...operatorErrors },
      },
    },
    async (request) => s.events.ingest(request.body.events),
  );
}
