// A bound on how long an answer may take (start-up probes and readiness checks must not hang).

export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** `promise`, or a TimeoutError once `ms` have passed first. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new TimeoutError(ms));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether `promise` resolves within `ms`: false if it rejects or is late, for probes and waits
 * that only ask whether something answered in time.
 */
export const settlesWithin = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  within(promise, ms).then(
    () => true,
    () => false,
  );
