import type { ReactNode } from 'react';
import type { AgentState } from '../api.ts';

export type Tone = 'green' | 'blue' | 'orange' | 'amber' | 'red' | 'grey' | 'dark' | 'plain';

export function Badge({ tone = 'plain', title, children }: { tone?: Tone; title?: string | undefined; children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

const AGENT_TONE: Record<AgentState, Tone> = {
  online: 'green',
  busy: 'blue',
  draining: 'orange',
  drained: 'amber',
  offline: 'grey',
  retired: 'dark',
};

const AGENT_HINT: Record<AgentState, string> = {
  online: 'live and idle: takes the next job',
  busy: 'running an attempt',
  draining: 'told to stop: finishing its attempt, taking nothing new',
  drained: 'told to stop and idle: safe to take down',
  offline: 'not seen for 90 s',
  retired: 'gone for good: credentials revoked',
};

export function AgentStateBadge({ state }: { state: AgentState }) {
  return (
    <Badge tone={AGENT_TONE[state]} title={AGENT_HINT[state]}>
      {state}
    </Badge>
  );
}

const JOB_TONE: Record<string, Tone> = {
  pending: 'grey',
  uploading: 'grey',
  extracting_audio: 'blue',
  transcribing: 'blue',
  analyzing: 'blue',
  publishing: 'blue',
  completed: 'green',
  failed: 'red',
  deleted: 'dark',
};

export function JobStatusBadge({ status }: { status: string }) {
  return <Badge tone={JOB_TONE[status] ?? 'plain'}>{status}</Badge>;
}

const OUTCOME_TONE: Record<string, Tone> = { succeeded: 'green', completed: 'green', failed: 'red', lease_expired: 'orange' };

export function OutcomeBadge({ outcome }: { outcome: string | null }) {
  if (!outcome) return <Badge tone="blue">running</Badge>;
  return <Badge tone={OUTCOME_TONE[outcome] ?? 'grey'}>{outcome}</Badge>;
}

const LEDGER_TONE: Record<string, Tone> = { done: 'green', pending: 'amber', sending: 'blue', failed: 'red' };

export function LedgerStateBadge({ state }: { state: string }) {
  return <Badge tone={LEDGER_TONE[state] ?? 'grey'}>{state}</Badge>;
}
