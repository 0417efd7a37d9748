import type { Permissions } from '@nats-io/jwt';
import {
  agentInboxPrefix,
  agentSubjectToken,
  CONTROL_SUBJECT_PREFIX,
  PROGRESS_SUBJECT_PREFIX,
  WORK_STREAM,
  workConsumerName,
  type WorkKind,
} from '@cutroom/proto';

/** An agent needs a handful of subscriptions (its inbox, the running attempt's cancel, the pulls). */
export const AGENT_MAX_SUBSCRIPTIONS = 100;

/**
 * What an agent's NATS user may do (docs/adr/0009), and nothing else:
 * - pull, and ack, from the consumers of the work kinds it registered (JetStream API: consumer
 *   info and next message; acks go to the message's reply subject, `$JS.ACK.<stream>.<consumer>…`,
 *   or with a domain and account hash in front as newer servers may send);
 * - publish progress only under its own name;
 * - subscribe only to its own inbox and to cancels addressed to it. Nothing lets it publish a
 *   cancel or any control message: only the coordinator's user can.
 */
export function agentPermissions(agentId: string, kinds: readonly WorkKind[]): Permissions & { subs: number } {
  const token = agentSubjectToken(agentId);
  const pull = kinds.flatMap((kind) => {
    const consumer = workConsumerName(kind);
    return [
      `$JS.API.CONSUMER.INFO.${WORK_STREAM}.${consumer}`,
      `$JS.API.CONSUMER.MSG.NEXT.${WORK_STREAM}.${consumer}`,
      `$JS.ACK.${WORK_STREAM}.${consumer}.>`,
      `$JS.ACK.*.*.${WORK_STREAM}.${consumer}.>`,
    ];
  });
  return {
    pub: { allow: [...pull, `${PROGRESS_SUBJECT_PREFIX}.${token}.*`] },
    sub: { allow: [`${agentInboxPrefix(agentId)}.>`, `${CONTROL_SUBJECT_PREFIX}.cancel.${token}.*`] },
    subs: AGENT_MAX_SUBSCRIPTIONS,
  };
}
