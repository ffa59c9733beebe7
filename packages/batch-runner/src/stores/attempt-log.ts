import type { DeliveryAttempt } from '../store.js';

/** The error of an attempt begun and not completed yet (`inProgress`). */
export const ATTEMPT_IN_PROGRESS = 'in progress: no outcome recorded yet';

/**
 * The error of an attempt whose deliverer stopped (a crash, a kill) after beginning it and before
 * recording its outcome: the request may have reached the receiver, which then gets the same
 * event again (the same event id and `webhook-id`: deliveries are at-least-once).
 */
export const ATTEMPT_INTERRUPTED =
  'interrupted: the deliverer stopped before recording an outcome (the receiver may have got this attempt)';

/**
 * An event's attempt log (oldest first) with a new attempt begun at the end; an earlier attempt
 * still in progress is closed as interrupted. For stores that keep the log as one list.
 */
export function beginInLog(
  attempts: readonly DeliveryAttempt[],
  begun: Pick<DeliveryAttempt, 'at' | 'trigger'>,
): DeliveryAttempt[] {
  const closed = attempts.map((attempt) => (attempt.inProgress ? interrupted(attempt) : attempt));
  return [
    ...closed,
    {
      at: begun.at,
      status: null,
      latencyMs: 0,
      error: ATTEMPT_IN_PROGRESS,
      ...(begun.trigger && { trigger: begun.trigger }),
      inProgress: true,
    },
  ];
}

/** The log with its attempt in progress completed by `attempt` (appended when none is in progress). */
export function completeInLog(
  attempts: readonly DeliveryAttempt[],
  attempt: DeliveryAttempt,
): DeliveryAttempt[] {
  const last = attempts.at(-1);
  const { inProgress: _open, ...done } = attempt;
  return last?.inProgress ? [...attempts.slice(0, -1), done] : [...attempts, done];
}

function interrupted({ inProgress: _open, ...attempt }: DeliveryAttempt): DeliveryAttempt {
  return { ...attempt, error: ATTEMPT_INTERRUPTED };
}
